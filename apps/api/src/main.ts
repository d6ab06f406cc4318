import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { ConfigError, loadConfig } from '@lib/core';
import { AppModule } from './app.module';

/** `npm start`: the API and the workers in one process (the embedded default needs nothing else). */
async function main(): Promise<void> {
  const config = loadConfig();
  const app = await NestFactory.create(AppModule.forRoot(config), { logger: ['error', 'warn', 'log'] });
  app.setGlobalPrefix('api/v1');
  app.enableShutdownHooks();
  await app.listen(config.port, config.host);
  const roles = config.role === 'all' ? 'API and workers' : 'API';
  console.log(`payments service: ${roles} listening on http://${config.host}:${config.port}/api/v1 (store: ${storeName(config)})`);
}

function storeName(config: ReturnType<typeof loadConfig>): string {
  if (config.eventstoreUrl) return 'eventstoredb';
  if (config.databaseUrl) return 'postgres';
  return `embedded, ${config.dataDir}`;
}

main().catch((error) => {
  console.error(error instanceof ConfigError ? `configuration error: ${error.message}` : error);
  process.exit(1);
});
