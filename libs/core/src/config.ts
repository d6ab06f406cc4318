import { StoreConfig, adapterFor } from '@lib/eventstore';

/** The process's configuration, read once from the environment and validated at start. */
export interface AppConfig extends StoreConfig {
  port: number;
  host: string;
  role: 'all' | 'api' | 'worker';
}

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env, argv: string[] = process.argv): AppConfig {
  const port = env.PORT === undefined || env.PORT === '' ? 3000 : Number(env.PORT);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new ConfigError(`PORT must be an integer from 0 to 65535, got ${JSON.stringify(env.PORT)}`);
  for (const [name, value, schemes] of [
    ['DATABASE_URL', env.DATABASE_URL, ['postgres:', 'postgresql:']],
    ['EVENTSTORE_URL', env.EVENTSTORE_URL, ['esdb:', 'esdb+discover:', 'kurrentdb:', 'kurrentdb+discover:']],
  ] as const) {
    if (!value) continue;
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      throw new ConfigError(`${name} is not a valid URL`);
    }
    if (!(schemes as readonly string[]).includes(url.protocol)) throw new ConfigError(`${name} must start with ${schemes.join(' or ')}//`);
  }
  const roleArg = argv.find((a) => a.startsWith('--role='))?.slice('--role='.length) ?? env.ROLE ?? 'all';
  if (roleArg !== 'all' && roleArg !== 'api' && roleArg !== 'worker') throw new ConfigError(`--role must be all, api or worker, got ${roleArg}`);
  const config: AppConfig = {
    port,
    host: env.HOST || '127.0.0.1',
    role: roleArg,
    databaseUrl: env.DATABASE_URL || undefined,
    eventstoreUrl: env.EVENTSTORE_URL || undefined,
    dataDir: env.DATA_DIR || './data',
  };
  if (adapterFor(config) === 'embedded' && roleArg !== 'all') {
    throw new ConfigError(`--role=${roleArg} runs the API and workers apart, which needs a shared store: set DATABASE_URL (and EVENTSTORE_URL if used)`);
  }
  return config;
}
