import { Command, InvalidArgumentError, Option } from 'commander';
import { AppConfig, ConfigError, loadConfig, recordedRenderingSettings, renderingFor } from '@lib/core';
import { DomainError } from '@lib/businesses';
import { DataDirectoryLockedError, Sql } from '@lib/database';
import { DomainRefusal } from '@lib/domain';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { OpenedStore, adapterFor, openEventStore } from '@lib/eventstore';
import { allProjectors } from '@lib/wiring';
import { printStream, tailLog } from './commands/events';
import { printStatus, rebuild, verify } from './commands/projections';
import {
  BusinessAdmin,
  createBusiness,
  createKey,
  defaultOperator,
  listKeys,
  openBusinessAdmin,
  reinstateBusiness,
  revokeKey,
  suspendBusiness,
  clearPause,
  listPauses,
  setPause,
  disableLink,
} from './commands/businesses';
import { seed } from './commands/seed';

/**
 * Operator CLI (`npm run cli -- …`): read and follow the event log, and check, rebuild and
 * verify projections. It uses the same configuration as the service (DATABASE_URL,
 * EVENTSTORE_URL, DATA_DIR).
 */
/**
 * Set when whoever reads stdout has gone (`… --json | head -2`: EPIPE): printing stops quietly,
 * `events tail` stops, and the command ends as it would have, closing its store — rather than an
 * unhandled EPIPE stack trace (operator audit 2026-11-29, F6).
 */
const stdoutClosed = new AbortController();
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
  stdoutClosed.abort();
});
const out = (line: string) => {
  if (!stdoutClosed.signal.aborted) process.stdout.write(`${line}\n`);
};
const err = (line: string) => process.stderr.write(`${line}\n`);

function integerAtLeast(min: number) {
  return (value: string) => {
    if (!/^\d+$/.test(value) || Number(value) < min || !Number.isSafeInteger(Number(value))) {
      throw new InvalidArgumentError(`expected a whole number of at least ${min}`);
    }
    return Number(value);
  };
}

/**
 * The projectors as the service renders them (a payment event's `url` comes from
 * CHECKOUT_BASE_URL): with the value the service recorded on this store; the CLI's own
 * (CHECKOUT_BASE_URL or PORT set) only when it is the same. A CLI whose value differs, or a
 * service whose processes started with different values, is refused (exit 2) with the setting
 * named — verify's advice to rebuild must never rewrite stored payloads with another host
 * (operator audit 2026-11-29, F1; renderingFor).
 */
async function configuredProjectors(db: Sql) {
  const config = loadConfig(process.env, []);
  const rendering = renderingFor(await recordedRenderingSettings(db), { checkoutBaseUrl: config.checkoutBaseUrl, named: Boolean(process.env.CHECKOUT_BASE_URL || process.env.PORT) });
  if ('refusal' in rendering) throw new ConfigError(rendering.refusal);
  if (rendering.note) err(`${rendering.note} (set CHECKOUT_BASE_URL to the same value to confirm it)`);
  return allProjectors({ ...config, checkoutBaseUrl: rendering.checkoutBaseUrl });
}

/** Runs `fn` on a resource opened from the environment's configuration, and closes it however `fn` ends. */
async function using<R extends { close(): Promise<void> }, T>(open: (config: AppConfig) => Promise<R>, fn: (resource: R) => Promise<T>): Promise<T> {
  const resource = await open(loadConfig(process.env, []));
  try {
    return await fn(resource);
  } finally {
    await resource.close();
  }
}

const withStore = <T>(fn: (opened: OpenedStore) => Promise<T>) => using(openEventStore, fn);

/**
 * For the commands that read or rebuild what a server wrote (events, projections): on the
 * embedded store, DATA_DIR must hold one — a mistyped directory would otherwise open a new,
 * empty store and answer "not found" about everything (operators audit).
 */
const withServerStore = <T>(fn: (opened: OpenedStore) => Promise<T>) =>
  using(async (config) => {
    if (adapterFor(config) === 'embedded') {
      const dir = resolve(config.dataDir ?? './data');
      if (!existsSync(join(dir, 'pg'))) throw new ConfigError(`no store in DATA_DIR ${dir}: run this with the DATA_DIR the server uses (or its DATABASE_URL)`);
    }
    return openEventStore(config);
  }, fn);
const withAdmin = <T>(fn: (admin: BusinessAdmin) => Promise<T>) => using((config) => openBusinessAdmin(config, err), fn);

/** `--reason`, required of an operator's action on a business, link or pause: the event records it. */
const reasonOption = () => new Option('--reason <text>', 'why, for the record (at most 500 characters)').makeOptionMandatory();

/** `--business`, required of the key commands that act on a business's keys (create, list). */
const businessOption = () => new Option('--business <id>', 'the business (biz_…)').makeOptionMandatory();

/** `--operator`, the actor the event records; `verb` says what they do ("suspends"). */
const operatorOption = (verb: string) => new Option('--operator <name>', `who ${verb} it, recorded as the actor (default: the OS user name)`).default(defaultOperator());

/** How an operator's action on a business, a link or a pause is asked for: a mandatory `--reason` where the event records one, `--operator` (who `verb` it), and `--json` printing `json`. */
interface OperatorAction {
  verb: string;
  reason: boolean;
  json: string;
}

/** The command `usage` under `parent`: the operator's action (`--reason`, `--operator`, `--json`) that `run` performs on its one argument. */
function operatorCommand(
  parent: Command,
  usage: string,
  description: string,
  action: OperatorAction,
  run: (admin: BusinessAdmin, target: string, options: { reason: string; operator: string; json?: boolean }, print: typeof out) => Promise<void>,
): void {
  const command = parent.command(usage).description(description);
  if (action.reason) command.addOption(reasonOption());
  command
    .addOption(operatorOption(action.verb))
    .option('--json', action.json)
    .action(async (target: string, options) => withAdmin((admin) => run(admin, target, options, out)));
}

function program(): Command {
  const cli = new Command('payments').description('Operator CLI of the payments service').showHelpAfterError();

  const events = cli.command('events').description('read the event log');
  events
    .command('stream <stream>')
    .description("print a stream's history, oldest first (JSON lines; a table with --pretty)")
    .option('--pretty', 'print a table')
    .option('--from <revision>', 'start at this revision', integerAtLeast(0))
    .option('--limit <count>', 'at most this many events', integerAtLeast(1))
    .option('--backwards', 'newest first')
    .action(async (stream: string, options) => {
      process.exitCode = await withServerStore(({ store }) => printStream(store, stream, options, out, err));
    });
  events
    .command('tail')
    .description('follow the global log (Ctrl-C to stop)')
    .option('--from <position>', '"now" (default), "start", or a position commit/prepare')
    .option('--pretty', 'one readable line per event')
    .action(async (options) => {
      const abort = new AbortController();
      process.once('SIGINT', () => abort.abort());
      process.once('SIGTERM', () => abort.abort());
      stdoutClosed.signal.addEventListener('abort', () => abort.abort());
      await withServerStore(({ store }) => tailLog(store, options, out, abort.signal));
    });

  const projections = cli.command('projections').description('projections (read models)');
  projections
    .command('status')
    .description('position, events applied and lag of every projection')
    .option('--json', 'JSON lines')
    .action(async (options) => withServerStore(({ store, db }) => printStatus(store, db, Boolean(options.json), out)));
  projections
    .command('rebuild [names...]')
    .description('rebuild projections from position zero, with progress')
    .option('--all', 'every projection')
    .action(async (names: string[], options) => withServerStore(async ({ store, db }) => rebuild(store, db, names, Boolean(options.all), out, await configuredProjectors(db))));
  projections
    .command('verify [names...]')
    .description('replay into a scratch schema and diff with the live tables; exit 1 on any difference')
    .option('--all', 'every projection')
    .action(async (names: string[], options) => {
      process.exitCode = await withServerStore(async ({ store, db }) => verify(store, db, names, Boolean(options.all), out, await configuredProjectors(db)));
    });

  const businesses = cli.command('businesses').description('businesses');
  businesses
    .command('create')
    .description('create a business with a secret and a publishable key (shown once)')
    .requiredOption('--name <name>', 'the business name')
    .option('--simulated', 'a simulated business: watches no chain, test keys, a clock of its own')
    .option('--referral-code <code>', "another business's referral code: that business is recorded as the referrer")
    .option('--json', 'print one JSON object {business, keys}: each key as POST /api-keys answers it, its whole key in `secret`')
    .action(async (options) => withAdmin((admin) => createBusiness(admin, options.name, Boolean(options.simulated), Boolean(options.json), out, options.referralCode)));
  operatorCommand(businesses, 'suspend <business_id>', 'suspend a business: no new payments or checkouts (open checkouts can finish) until reinstated', { reason: true, verb: 'suspends', json: 'print the business as JSON' }, suspendBusiness);
  operatorCommand(businesses, 'reinstate <business_id>', 'lift a suspension', { reason: false, verb: 'reinstates', json: 'print the business as JSON' }, reinstateBusiness);

  const links = cli.command('links').description('payment links (decision 0030)');
  operatorCommand(links, 'disable <link_id>', 'disable a payment link: its checkouts answer 404 link_not_found, the business cannot restore it (409 link_disabled)', { reason: true, verb: 'disables', json: 'print JSON' }, disableLink);

  const pauses = cli.command('pauses').description('pause, for every business, new checkouts, card payments, one network or sign-ups (503 temporarily_unavailable)');
  pauses
    .command('list')
    .description('what is paused')
    .option('--json', 'JSON lines, one pause each')
    .action(async (options) => withAdmin((admin) => listPauses(admin, options, out)));
  operatorCommand(pauses, 'set <target>', 'pause checkouts | card_payments | signups | network:<network> (e.g. network:polygon); exit 2 when it is already paused', { reason: true, verb: 'pauses', json: 'print the pauses as JSON' }, setPause);
  operatorCommand(pauses, 'clear <target>', 'let a paused action go again (exit 2 when it is not paused)', { reason: false, verb: 'resumes', json: 'print the pauses as JSON' }, clearPause);

  const keys = cli.command('keys').description('API keys');
  keys
    .command('create')
    .description('create an API key (shown once)')
    .addOption(businessOption())
    .option('--test', 'a test-mode key')
    .option('--restricted <permissions>', 'a restricted key, e.g. payments:write,webhooks:read')
    .addOption(new Option('--publishable', 'a publishable key').conflicts('restricted'))
    .option('--name <name>', 'a name to recognise it by')
    .option('--json', 'print the key as POST /api-keys answers it, its whole key in `secret`')
    .action(async (options) => withAdmin((admin) => createKey(admin, options, out)));
  keys
    .command('list')
    .description("a business's keys (never the keys themselves)")
    .addOption(businessOption())
    .option('--json', 'JSON lines')
    .action(async (options) => withAdmin((admin) => listKeys(admin, options.business, Boolean(options.json), out)));
  keys
    .command('revoke <keyId>')
    .description('revoke a key at once (it cannot be restored)')
    .option('--json', 'print the key as JSON')
    .action(async (keyId: string, options) => withAdmin((admin) => revokeKey(admin, keyId, Boolean(options.json), out)));

  const dev = cli.command('dev').description('development helpers');
  dev
    .command('seed')
    .description('fill the store with synthetic payment streams')
    .addOption(new Option('--streams <n>', 'number of streams').default(100).argParser(integerAtLeast(1)))
    .addOption(new Option('--events <n>', 'events per stream').default(10).argParser(integerAtLeast(1)))
    .action(async (options) => withStore(({ store }) => seed(store, options.streams, options.events, out)));
  return cli;
}

program()
  .parseAsync(process.argv)
  .catch((error) => {
    if (error instanceof ConfigError) console.error(`configuration error: ${error.message}`);
    else if (error instanceof DataDirectoryLockedError) console.error(error.message);
    else if (error instanceof DomainError || error instanceof DomainRefusal) console.error(`${error.code}: ${error.message}`);
    else console.error(error instanceof Error ? error.message : error);
    process.exitCode = 2;
  });
