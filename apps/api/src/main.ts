import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { ConfigError, assertServiceConfig, loadConfig } from '@lib/core';
import { API_PREFIX, createApiApp } from './bootstrap';

/** `npm start`: the API and the workers in one process (the embedded default needs nothing else). */
async function main(): Promise<void> {
  const config = loadConfig();
  assertServiceConfig(config);
  const app = await createApiApp(config);
  await app.listen(config.port, config.host);
  const roles = config.role === 'all' ? 'API and workers' : 'API';
  const store = config.eventstoreUrl ? 'eventstoredb' : config.databaseUrl ? 'postgres' : `embedded, ${config.dataDir}`;
  new Logger('main').log(`payments service: ${roles} listening on http://${config.host}:${config.port}/${API_PREFIX} (store: ${store})`);
}

main().catch((error) => {
  console.error(error instanceof ConfigError ? `configuration error: ${error.message}` : error);
  process.exit(1);
});
