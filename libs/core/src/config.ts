import { StoreConfig, adapterFor } from '@lib/eventstore';
import { parseTrustedProxies } from '@lib/rate-limit';
import { ASSET_CODES, AssetCode, NetworkId, isValidAddress } from '@lib/chains';

/** The EVM networks a node URL can be configured for (EVM_RPC_URL_<NETWORK>). */
export const EVM_NETWORKS = ['ethereum', 'polygon', 'base', 'arbitrum'] as const satisfies readonly NetworkId[];
export type EvmNetworkId = (typeof EVM_NETWORKS)[number];
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
  /** Key-encryption key of wallet secrets (WALLET_KEK: 64 hex digits or base64 of 32 bytes), or null. */
  walletKek: string | null;
  /** A file holding it (WALLET_KEK_FILE), or null. Neither: only the embedded store may run, with a generated development key in DATA_DIR. */
  walletKekFile: string | null;
  /** JSON-RPC node of each EVM network the service watches (EVM_RPC_URL_<NETWORK>); a network without one is not offered to live businesses. */
  evmRpcUrls: Partial<Record<EvmNetworkId, string>>;
  /** Token contracts of a network instead of the registry's (EVM_TOKENS_<NETWORK>=USDC=0x…,USDT=0x…): test chains and testnets deploy their own. */
  evmTokens: Partial<Record<EvmNetworkId, Partial<Record<AssetCode, string>>>>;
  /** Solana JSON-RPC node (SOLANA_RPC_URL), or null. */
  solanaRpcUrl: string | null;
  /** Esplora HTTP API of a Bitcoin indexer (BITCOIN_ESPLORA_URL), or null. */
  bitcoinEsploraUrl: string | null;
  /** How often a chain watcher asks its node for new blocks (CHAIN_POLL_MS). */
  chainPollMs: number;
  /** Base URL of the live exchange-rate source (RATES_URL); null (RATES_URL=off) runs without one: live businesses cannot be quoted. */
  ratesUrl: string | null;
  /** Freshness bound of live rates in milliseconds (RATES_MAX_AGE_SECONDS): an older price is never quoted from. */
  ratesMaxAgeMs: number;
  /** Simulated card processors made unreachable (SIMULATED_CARD_PROCESSORS_DOWN=simulated_a,simulated_b): a test switch for 503 upstream_unavailable (decision 0026). */
  simulatedCardProcessorsDown: string[];
  /**
   * SMTP server of outgoing e-mail (SMTP_URL: smtp://user:pass@host:587 or smtps://…:465), or null:
   * the embedded store then writes mail to the dev mailbox DATA_DIR/mail, a shared store sends none
   * (503 email_unavailable). Its credentials are never logged (decision 0032).
   */
  smtpUrl: string | null;
  /** Sender of every e-mail (MAIL_FROM: `no-reply@example.com` or `Example <no-reply@example.com>`). */
  mailFrom: string;
  /**
   * Bot-challenge verifier of sign-up, sign-in and password reset (CHALLENGE_PROVIDER: turnstile or
   * test). Unset: `test` with the embedded store, none with a shared store (every challenge then
   * fails: a deployment must choose). Decision 0032.
   */
  challengeProvider: 'turnstile' | 'test' | null;
  /** Cloudflare Turnstile secret key (TURNSTILE_SECRET_KEY), required with CHALLENGE_PROVIDER=turnstile; never logged. */
  turnstileSecretKey: string | null;
  /** Turnstile's siteverify endpoint (TURNSTILE_VERIFY_URL; default Cloudflare's). */
  turnstileVerifyUrl: string;
  /** Megabytes of list pages a process running the projections keeps in memory (READ_CACHE_MB; 0: none). Decision 0019. */
  readCacheMb: number;
  /** Age at which a kept page is read again whatever was announced (READ_CACHE_MAX_AGE_SECONDS). */
  readCacheMaxAgeMs: number;
  /**
   * An `api` replica whose read-your-writes wait has lasted this long (no worker running, or one
   * far behind) applies the projections its write needs itself (PROJECTION_CATCH_UP_MS; `off`: never). Decision 0019.
   */
  projectionCatchUpMs: number | null;
  /**
   * A process running the background work (role `worker` or `all`) not seen for longer than this
   * makes GET /health `degraded` on every process (WORKER_STALE_AFTER_SECONDS). Such a process
   * records its heartbeat a few times within it. Decision 0017, addendum of 2026-11-29.
   */
  workerStaleAfterMs: number;
}

/** Cloudflare Turnstile's server-side validation endpoint. */
export const TURNSTILE_SITEVERIFY_URL = 'https://challenges.cloudflare.com/turnstile/v0/siteverify';

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
  'WALLET_KEK',
  'WALLET_KEK_FILE',
  'EVM_RPC_URL_ETHEREUM',
  'EVM_RPC_URL_POLYGON',
  'EVM_RPC_URL_BASE',
  'EVM_RPC_URL_ARBITRUM',
  'EVM_TOKENS_ETHEREUM',
  'EVM_TOKENS_POLYGON',
  'EVM_TOKENS_BASE',
  'EVM_TOKENS_ARBITRUM',
  'SOLANA_RPC_URL',
  'BITCOIN_ESPLORA_URL',
  'CHAIN_POLL_MS',
  'RATES_URL',
  'RATES_MAX_AGE_SECONDS',
  'SIMULATED_CARD_PROCESSORS_DOWN',
  'SMTP_URL',
  'MAIL_FROM',
  'CHALLENGE_PROVIDER',
  'TURNSTILE_SECRET_KEY',
  'TURNSTILE_VERIFY_URL',
  'READ_CACHE_MB',
  'READ_CACHE_MAX_AGE_SECONDS',
  'PROJECTION_CATCH_UP_MS',
  'WORKER_STALE_AFTER_SECONDS',
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
    walletKek: env.WALLET_KEK || null,
    walletKekFile: env.WALLET_KEK_FILE || null,
    evmRpcUrls: Object.fromEntries(
      EVM_NETWORKS.flatMap((network) => {
        const value = url(env, `EVM_RPC_URL_${network.toUpperCase()}`, ['http:', 'https:', 'ws:', 'wss:']);
        return value ? [[network, value]] : [];
      }),
    ),
    evmTokens: Object.fromEntries(EVM_NETWORKS.flatMap((network) => tokens(env, network))),
    solanaRpcUrl: url(env, 'SOLANA_RPC_URL', ['http:', 'https:']),
    bitcoinEsploraUrl: url(env, 'BITCOIN_ESPLORA_URL', ['http:', 'https:']),
    chainPollMs: integer(env, 'CHAIN_POLL_MS', 2000, 50, 600_000),
    ratesUrl: ratesUrl === null ? null : ratesUrl.replace(/\/+$/, ''),
    ratesMaxAgeMs: ratesMaxAge * 1000,
    simulatedCardProcessorsDown: simulatedDown(env.SIMULATED_CARD_PROCESSORS_DOWN),
    smtpUrl: url(env, 'SMTP_URL', ['smtp:', 'smtps:']),
    mailFrom: mailFrom(env.MAIL_FROM),
    challengeProvider: challengeProvider(env.CHALLENGE_PROVIDER),
    turnstileSecretKey: env.TURNSTILE_SECRET_KEY || null,
    turnstileVerifyUrl: url(env, 'TURNSTILE_VERIFY_URL', ['http:', 'https:']) ?? TURNSTILE_SITEVERIFY_URL,
    readCacheMb: integer(env, 'READ_CACHE_MB', 8, 0, 1024),
    readCacheMaxAgeMs: integer(env, 'READ_CACHE_MAX_AGE_SECONDS', 10, 1, 3600) * 1000,
    projectionCatchUpMs: catchUpMs(env.PROJECTION_CATCH_UP_MS),
    workerStaleAfterMs: integer(env, 'WORKER_STALE_AFTER_SECONDS', 30, 1, 3600) * 1000,
  };
  if (config.smtpUrl !== null && (env.MAIL_FROM ?? '') === '') throw new ConfigError('MAIL_FROM is required with SMTP_URL: the address every e-mail is sent from');
  if (config.challengeProvider === 'turnstile' && config.turnstileSecretKey === null) throw new ConfigError('TURNSTILE_SECRET_KEY is required with CHALLENGE_PROVIDER=turnstile');
  if (config.challengeProvider === null && adapterFor(config) === 'embedded') config.challengeProvider = 'test';
  if (config.walletKek !== null && !isKek(config.walletKek)) throw new ConfigError('WALLET_KEK must be 32 bytes written as 64 hex digits or base64');
  if (adapterFor(config) === 'embedded' && roleArg !== 'all') {
    throw new ConfigError(`--role=${roleArg} runs the API and workers apart, which needs a shared store: set DATABASE_URL (and EVENTSTORE_URL if used)`);
  }
  return config;
}

/**
 * What the service's own processes (the API, the worker) need beyond loadConfig's checks, which
 * every reader of the configuration shares (the operator CLI reading the log needs no wallet key):
 * with a shared store, a key-encryption key for wallet secrets — every process must seal and open
 * them under the same one, and one generated beside the data would protect nothing.
 */
export function assertServiceConfig(config: AppConfig): void {
  if (config.walletKek === null && config.walletKekFile === null && adapterFor(config) !== 'embedded') {
    throw new ConfigError('WALLET_KEK or WALLET_KEK_FILE is required with a shared store (DATABASE_URL): every process must seal and open wallet secrets under the same key');
  }
}

/**
 * The API entry point (`npm start`, dist/apps/api/src/main.js) serves HTTP: `all` or `api`. A
 * worker is another program (`npm run start:worker`); ROLE=worker or --role=worker here used to
 * start an `all` process serving the whole public API (operator audit 2026-11-29, F3), so it is
 * refused with the command to use instead.
 */
export function assertApiEntryRole(config: Pick<AppConfig, 'role'>): void {
  if (config.role === 'worker') {
    throw new ConfigError('ROLE (or --role) is worker, but this is the API entry point (npm start / npm run start:api): start a worker with `npm run start:worker` (dist/apps/worker/src/main.js); here ROLE must be all or api');
  }
}

/** MAIL_FROM: an address, or a display name and an address in angle brackets; no line breaks (header injection). */
function mailFrom(text: string | undefined): string {
  const value = (text ?? '').trim();
  if (value === '') return 'Payments <no-reply@localhost>';
  if (!/^([^\r\n<>]*<[^\s<>@]+@[^\s<>@]+>|[^\s<>@]+@[^\s<>@]+)$/.test(value)) {
    throw new ConfigError(`MAIL_FROM must be an address like no-reply@example.com or Example <no-reply@example.com>, got ${JSON.stringify(value)}`);
  }
  return value;
}

/** CHALLENGE_PROVIDER: turnstile or test; unset is decided by the store (loadConfig). */
function challengeProvider(text: string | undefined): AppConfig['challengeProvider'] {
  const value = (text ?? '').trim().toLowerCase();
  if (value === '') return null;
  if (value === 'turnstile' || value === 'test') return value;
  throw new ConfigError(`CHALLENGE_PROVIDER must be turnstile or test, got ${JSON.stringify(text)}`);
}

/** SIMULATED_CARD_PROCESSORS_DOWN: a comma-separated list of simulated card processors to make unreachable (simulated_a, simulated_b). */
function simulatedDown(text: string | undefined): string[] {
  const names = (text ?? '').split(',').map((n) => n.trim()).filter((n) => n !== '');
  for (const name of names) if (name !== 'simulated_a' && name !== 'simulated_b') throw new ConfigError(`SIMULATED_CARD_PROCESSORS_DOWN names simulated_a or simulated_b, got ${JSON.stringify(name)}`);
  return names;
}

/** EVM_TOKENS_<NETWORK>: `USDC=0x…,USDT=0x…` — assets the registry puts on that network, valid addresses. */
function tokens(env: NodeJS.ProcessEnv, network: EvmNetworkId): [EvmNetworkId, Partial<Record<AssetCode, string>>][] {
  const name = `EVM_TOKENS_${network.toUpperCase()}`;
  const text = env[name];
  if (!text) return [];
  const out: Partial<Record<AssetCode, string>> = {};
  for (const pair of text.split(',').map((p) => p.trim()).filter(Boolean)) {
    const [asset, address] = pair.split('=').map((p) => p.trim());
    if (!(ASSET_CODES as readonly string[]).includes(asset) || asset === 'ETH' || !address || !isValidAddress(network, address)) {
      throw new ConfigError(`${name} must be a list like USDC=0x…,USDT=0x… (a token and its contract address), got ${JSON.stringify(pair)}`);
    }
    out[asset as AssetCode] = address;
  }
  return [[network, out]];
}

/** 32 bytes as 64 hex digits or base64 (the wallets library parses it; this only refuses a malformed one at start). */
function isKek(text: string): boolean {
  const t = text.trim();
  return /^[0-9a-fA-F]{64}$/.test(t) || (/^[A-Za-z0-9+/_-]{43}=?$/.test(t) && Buffer.from(t, 'base64').length === 32);
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

/** PROJECTION_CATCH_UP_MS: `off`, or milliseconds below the 5 s read-your-writes wait. */
function catchUpMs(text: string | undefined): number | null {
  if (text === undefined || text === '') return 1000;
  if (text === 'off') return null;
  if (!/^\d+$/.test(text) || Number(text) > 4000) throw new ConfigError(`PROJECTION_CATCH_UP_MS must be off or an integer from 0 to 4000, got ${JSON.stringify(text)}`);
  return Number(text);
}

function integer(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const text = env[name];
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < min || value > max) throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got ${JSON.stringify(text)}`);
  return value;
}

/** The networks the configuration gives a node for (EVM_RPC_URL_<NETWORK>, SOLANA_RPC_URL, BITCOIN_ESPLORA_URL): where live payments are taken. */
export function watchedNetworks(config: Pick<AppConfig, 'evmRpcUrls' | 'solanaRpcUrl' | 'bitcoinEsploraUrl'>): NetworkId[] {
  return [...(Object.keys(config.evmRpcUrls) as NetworkId[]), ...(config.solanaRpcUrl ? (['solana'] as const) : []), ...(config.bitcoinEsploraUrl ? (['bitcoin'] as const) : [])];
}
