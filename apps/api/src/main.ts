import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { AppConfig, WorkerHeartbeats, assertApiEntryRole, assertServiceConfig, loadConfig, startupFailure } from '@lib/core';
import { API_PREFIX, createApiApp } from './bootstrap';

/** The configuration once read: what a failure to listen names. */
let started: AppConfig | undefined;

/** `npm start`: the API and the workers in one process (the embedded default needs nothing else). */
async function main(): Promise<void> {
  const config = loadConfig();
  started = config;
  assertApiEntryRole(config);
  assertServiceConfig(config);
  const app = await createApiApp(config);
  await app.listen(config.port, config.host);
  // the opaque id GET /health lists this process under (workers.running) while it runs the background work
  const roles = config.role === 'all' ? `API and workers (${app.get(WorkerHeartbeats).id}, pid ${process.pid})` : 'API';
  const store = config.eventstoreUrl ? 'eventstoredb' : config.databaseUrl ? 'postgres' : `embedded, ${config.dataDir}`;
  new Logger('main').log(`payments service: ${roles} listening on http://${config.host}:${config.port}/${API_PREFIX} (store: ${store})`);
}

main().catch((error) => {
  console.error(startupFailure(error, started));
  process.exit(1);
});
