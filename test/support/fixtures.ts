import { OpenedStore, StoreConfig, openEventStore } from '@lib/eventstore';
import { TestApi, startTestApi } from './api-app';
import { Client, businessWithKey } from './client';
import { TestDatabase, createTestDatabase } from './postgres';
import { tempDir } from './temp-dir';

/**
 * How suites get what they test on, in one place: a store of either kind, the running app on
 * either kind, and a business with its secret key and a client (re-exported from ./client).
 * Each fixture cleans up after itself (temp folder removed, database dropped).
 */
export { type Answer, type BusinessWithKey, Client, businessWithKey, clientWithNewKey, expectNotFoundEverywhere, expectQueriesRefused, expectTwoPages } from './client';
export { type TestApi, startTestApi } from './api-app';

export type StoreKind = 'embedded' | 'postgres';

/** Both kinds, for `describe.each(STORE_KINDS)`. */
export const STORE_KINDS: readonly StoreKind[] = ['embedded', 'postgres'];

export interface TestStore extends OpenedStore {
  kind: StoreKind;
  /** What the service and the CLI take to open this same store (DATA_DIR or DATABASE_URL). */
  env: { DATA_DIR?: string; DATABASE_URL: string };
  /** Opens the same store again (another process's view of it). */
  reopen(): Promise<OpenedStore>;
  /** Closes the store, then removes its folder or drops its database. */
  cleanup(): Promise<void>;
}

/**
 * A fresh event store with its SQL database: PGlite in a temp folder, or a new PostgreSQL
 * database. `options` are the store's other settings (a shorter poll interval, say).
 */
export async function openTestStore(kind: StoreKind, prefix = 't', options: Pick<StoreConfig, 'pollIntervalMs'> = {}): Promise<TestStore> {
  if (kind === 'embedded') {
    const dir = tempDir();
    const open = () => openEventStore({ ...options, dataDir: dir.path });
    const opened = await open();
    return { ...opened, kind, env: { DATA_DIR: dir.path, DATABASE_URL: '' }, reopen: open, cleanup: async () => (await opened.close(), dir.remove()) };
  }
  const database = await createTestDatabase(prefix);
  const open = () => openEventStore({ ...options, databaseUrl: database.url });
  const opened = await open();
  return { ...opened, kind, env: { DATABASE_URL: database.url }, reopen: open, cleanup: async () => (await opened.close(), await database.drop()) };
}

/**
 * A fresh store (as `openTestStore`) for a `describe` block: opened before its first test,
 * cleaned up after its last. Read its fields inside tests and hooks, after its beforeAll:
 *
 *   const opened = storePerSuite(kind, 'proj');
 *   it('...', async () => { await opened.store.append(...); });
 */
export function storePerSuite(kind: StoreKind, prefix = 't', options: Pick<StoreConfig, 'pollIntervalMs'> = {}): TestStore {
  let opened: TestStore | undefined;
  beforeAll(async () => {
    opened = await openTestStore(kind, prefix, options);
  }, 60_000);
  afterAll(async () => {
    const open = opened;
    opened = undefined;
    await open?.cleanup();
  });
  return new Proxy({} as TestStore, {
    get(_, field) {
      if (opened === undefined) throw new Error('storePerSuite: the store is not open (read it inside tests and hooks, after its beforeAll)');
      return Reflect.get(opened, field);
    },
  });
}

/** Only the storage of a fresh store, unopened (for a service or CLI that opens it itself). */
export async function testStorage(kind: StoreKind, prefix = 't'): Promise<{ env: TestStore['env']; cleanup(): Promise<void> }> {
  if (kind === 'embedded') {
    const dir = tempDir();
    return { env: { DATA_DIR: dir.path, DATABASE_URL: '' }, cleanup: async () => dir.remove() };
  }
  const database = await createTestDatabase(prefix);
  return { env: { DATABASE_URL: database.url }, cleanup: () => database.drop() };
}

/** The real app on a real socket, on a fresh store of `kind`; close() also drops the store. */
export async function startApp(kind: StoreKind, env: NodeJS.ProcessEnv = {}, prefix = 'app'): Promise<TestApi> {
  const storage = await testStorage(kind, prefix);
  const api = await startTestApi({ ...storage.env, ...env });
  return { ...api, close: async () => (await api.close(), await storage.cleanup()) };
}

/** The clients of a new simulated business (`shop`) and of a new live one (`live`) on `api`. */
export async function shopAndLive(api: TestApi): Promise<{ shop: Client; live: Client }> {
  return { shop: (await businessWithKey(api, true)).client, live: (await businessWithKey(api, false)).client };
}

/**
 * The running app of a `describe` block and what its tests share. Registers, in the calling
 * block, a `beforeAll` that runs `start`, then `setup` (businesses, clients, documents) on the
 * app, and an `afterAll` that closes the app, also when `setup` failed. The fields are filled in
 * by that `beforeAll`: read them inside tests, hooks and the closures they call, not while the
 * block is being collected (`suite.api` read too early throws).
 *
 *   const suite = appPerSuite(
 *     () => startApp('embedded', { TRUSTED_PROXIES: 'loopback' }),
 *     async (api) => ({ shop: (await businessWithKey(api, true)).client }),
 *   );
 *   it('...', async () => { await suite.shop.createPayment(); });
 */
export function appPerSuite<T extends object = object>(start: () => Promise<TestApi>, setup?: (api: TestApi) => Promise<T>): { readonly api: TestApi } & Readonly<T> {
  let api: TestApi | undefined;
  const suite = {
    get api(): TestApi {
      if (api === undefined) throw new Error('appPerSuite: the app is not running (read suite.api inside tests and hooks, after its beforeAll)');
      return api;
    },
  };
  beforeAll(async () => {
    api = await start();
    if (setup) Object.assign(suite, await setup(api));
  });
  afterAll(async () => {
    const running = api;
    api = undefined;
    await running?.close();
  });
  return suite as { readonly api: TestApi } & Readonly<T>;
}

/**
 * Several app processes on one fresh PostgreSQL database for a `describe` block (replicas: two
 * `all` processes, or an `all` and an `api`), one per `env` (DATABASE_URL is added), started in
 * order; read `suite.replicas` inside tests. Each is closed, then the database dropped.
 */
export function replicasPerSuite(prefix: string, envs: readonly NodeJS.ProcessEnv[]): { readonly replicas: readonly TestApi[] } {
  let database: TestDatabase | undefined;
  let replicas: TestApi[] = [];
  beforeAll(async () => {
    database = await createTestDatabase(prefix);
    for (const env of envs) replicas.push(await startTestApi({ ...env, DATABASE_URL: database.url }));
  }, 60_000);
  afterAll(async () => {
    for (const replica of replicas) await replica.close();
    replicas = [];
    await database?.drop();
  });
  return {
    get replicas() {
      return replicas;
    },
  };
}

