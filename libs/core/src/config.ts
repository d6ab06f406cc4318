import { StoreConfig, adapterFor } from '@lib/eventstore';
import { parseTrustedProxies } from '@lib/rate-limit';
import { COINBASE_EXCHANGE_URL } from '@lib/rates';

/** The process's configuration, read once from the environment and validated at start. */
export interface AppConfig extends StoreConfig {
  port: number;
  host: string;
  role: 'all' | 'api' | 'worker';
  redisUrl?: string;
  /** Public base URL of the API (without /api/v1); requests must arrive through it (§5.8). */
  apiBaseUrl: string | null;
  /** Base URL of the hosted checkout page. */
  checkoutBaseUrl: string;
  /** Proxies whose X-Forwarded-For / X-Forwarded-Host are believed (addresses, CIDRs, keywords). */
  trustedProxies: string[];
  /** Lets webhook endpoints use http and private addresses (local development and tests only). */
  webhookAllowPrivateUrls: boolean;
  /** Life of a crypto quote in milliseconds (QUOTE_TTL_SECONDS; spec default 15 minutes). */
  quoteTtlMs: number;
  /** Processing fee rate of businesses, basis points (FEE_RATE_BPS). */
  feeRateBps: number;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** Port of the Prometheus /metrics listener; null (METRICS_PORT unset) serves none. */
  metricsPort: number | null;
  metricsHost: string;
  /** Base URL of the live exchange-rate source (RATES_URL); null (RATES_URL=off) runs without one: live businesses cannot be quoted. */
  ratesUrl: string | null;
  /** Freshness bound of live rates in milliseconds (RATES_MAX_AGE_SECONDS): an older price is never quoted from. */
  ratesMaxAgeMs: number;
}

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/** Every variable the service reads, with what it means: the README's table comes from here. */
export const CONFIG_VARIABLES = [
  'PORT',
  'HOST',
  'DATA_DIR',
  'DATABASE_URL',
  'EVENTSTORE_URL',
  'REDIS_URL',
  'API_BASE_URL',
  'CHECKOUT_BASE_URL',
  'TRUSTED_PROXIES',
  'WEBHOOK_ALLOW_PRIVATE_URLS',
  'LOG_LEVEL',
  'METRICS_PORT',
  'METRICS_HOST',
  'ROLE',
  'QUOTE_TTL_SECONDS',
  'FEE_RATE_BPS',
  'RATES_URL',
  'RATES_MAX_AGE_SECONDS',
] as const;

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

export function loadConfig(env: NodeJS.ProcessEnv = process.env, argv: string[] = process.argv): AppConfig {
  const port = env.PORT === undefined || env.PORT === '' ? 3000 : Number(env.PORT);
  if (!/^\d+$/.test(String(env.PORT ?? '3000') || '3000') || !Number.isInteger(port) || port < 0 || port > 65535) {
    throw new ConfigError(`PORT must be an integer from 0 to 65535, got ${JSON.stringify(env.PORT)}`);
  }
  const host = env.HOST || '127.0.0.1';
  url(env, 'DATABASE_URL', ['postgres:', 'postgresql:']);
  url(env, 'EVENTSTORE_URL', ['esdb:', 'esdb+discover:', 'kurrentdb:', 'kurrentdb+discover:']);
  url(env, 'REDIS_URL', ['redis:', 'rediss:']);
  const apiBaseUrl = url(env, 'API_BASE_URL', ['http:', 'https:']);
  const checkoutBaseUrl = url(env, 'CHECKOUT_BASE_URL', ['http:', 'https:']) ?? `http://localhost:${port || 3000}/checkout`;
  const roleArg = argv.find((a) => a.startsWith('--role='))?.slice('--role='.length) ?? (env.ROLE || 'all');
  if (roleArg !== 'all' && roleArg !== 'api' && roleArg !== 'worker') throw new ConfigError(`ROLE (or --role) must be all, api or worker, got ${JSON.stringify(roleArg)}`);
  const logLevel = (env.LOG_LEVEL || 'info') as AppConfig['logLevel'];
  if (!LOG_LEVELS.includes(logLevel)) throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got ${JSON.stringify(env.LOG_LEVEL)}`);
  const metricsPort = env.METRICS_PORT ? Number(env.METRICS_PORT) : null;
  if (metricsPort !== null && (!/^\d+$/.test(env.METRICS_PORT!) || metricsPort > 65535)) {
    throw new ConfigError(`METRICS_PORT must be an integer from 0 to 65535, got ${JSON.stringify(env.METRICS_PORT)}`);
  }
  const quoteTtl = integer(env, 'QUOTE_TTL_SECONDS', 900, 60, 24 * 3600);
  const feeRateBps = integer(env, 'FEE_RATE_BPS', 100, 0, 10_000);
  const ratesUrl = (env.RATES_URL ?? '').trim().toLowerCase() === 'off' ? null : (url(env, 'RATES_URL', ['http:', 'https:']) ?? COINBASE_EXCHANGE_URL);
  const ratesMaxAge = integer(env, 'RATES_MAX_AGE_SECONDS', 60, 1, 3600);
  const config: AppConfig = {
    port,
    host,
    role: roleArg,
    databaseUrl: env.DATABASE_URL || undefined,
    eventstoreUrl: env.EVENTSTORE_URL || undefined,
    dataDir: env.DATA_DIR || './data',
    redisUrl: env.REDIS_URL || undefined,
    apiBaseUrl: apiBaseUrl ? apiBaseUrl.replace(/\/+$/, '') : null,
    checkoutBaseUrl: checkoutBaseUrl.replace(/\/+$/, ''),
    trustedProxies: trustedProxies(env.TRUSTED_PROXIES),
    webhookAllowPrivateUrls: flag(env, 'WEBHOOK_ALLOW_PRIVATE_URLS'),
    quoteTtlMs: quoteTtl * 1000,
    feeRateBps,
    logLevel,
    metricsPort,
    metricsHost: env.METRICS_HOST || '127.0.0.1',
    ratesUrl: ratesUrl === null ? null : ratesUrl.replace(/\/+$/, ''),
    ratesMaxAgeMs: ratesMaxAge * 1000,
  };
  if (adapterFor(config) === 'embedded' && roleArg !== 'all') {
    throw new ConfigError(`--role=${roleArg} runs the API and workers apart, which needs a shared store: set DATABASE_URL (and EVENTSTORE_URL if used)`);
  }
  return config;
}

function url(env: NodeJS.ProcessEnv, name: string, schemes: string[]): string | null {
  const value = env[name];
  if (!value) return null;
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    throw new ConfigError(`${name} is not a valid URL`);
  }
  if (!schemes.includes(parsed.protocol)) throw new ConfigError(`${name} must start with ${schemes.map((s) => `${s}//`).join(' or ')}`);
  return value;
}

function flag(env: NodeJS.ProcessEnv, name: string): boolean {
  const value = (env[name] ?? '').trim().toLowerCase();
  if (value === '' || value === '0' || value === 'false' || value === 'no' || value === 'off') return false;
  if (value === '1' || value === 'true' || value === 'yes' || value === 'on') return true;
  throw new ConfigError(`${name} must be true or false, got ${JSON.stringify(env[name])}`);
}

function trustedProxies(value: string | undefined): string[] {
  try {
    return parseTrustedProxies(value);
  } catch (error) {
    throw new ConfigError(`TRUSTED_PROXIES: ${(error as Error).message}`);
  }
}

function integer(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const text = env[name];
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < min || value > max) throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got ${JSON.stringify(text)}`);
  return value;
}
