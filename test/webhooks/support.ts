import { READ_MODEL_PROJECTORS } from '@lib/wiring';
import { randomUUID } from 'node:crypto';
import { IncomingHttpHeaders, Server, createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import type { Database } from '@lib/database';
import { CommandRunner, EventStore, LogPosition, ReadModelWaiter, RecordedEvent, WriteMeta } from '@lib/eventstore';
import { BusinessService } from '@lib/businesses';
import { KeyEncryptionKey } from '@lib/wallets';
import { ProjectionRunner, Projector } from '@lib/projections';
import { type Client, type StoreKind, type TestApi, type TestStore, appPerSuite, businessWithKey, openTestStore, startTestApi } from '../support/fixtures';
import { closeInTurn } from '../support/close';
import { committedHead } from '../support/log-head';
import {
  ApiEventDraft,
  ApiEventSource,
  CreateEndpointCommand,
  CreateEndpointHandler,
  DeleteEndpointCommand,
  DeleteEndpointHandler,
  EndpointWrites,
  Resolver,
  RotateSecretCommand,
  RotateSecretHandler,
  UpdateEndpointCommand,
  UpdateEndpointHandler,
  WebhookDispatcher,
  WebhookDispatcherOptions,
  WebhookSecretStore,
  WebhookSender,
  WebhooksOptions,
  businessEventSource,
  eventsProjector,
  webhookEndpointsProjector,
} from '../../libs/webhooks/src';

/**
 * Receivers and dispatchers a suite starts on its database, with one call to stop them all (each
 * test's afterEach): dispatchers sign with TEST_KEK, poll every 10 ms and may send to loopback.
 */
export function dispatcherKit(db: () => Database) {
  const receivers: Receiver[] = [];
  const dispatchers: WebhookDispatcher[] = [];
  return {
    async receiver(respond?: Receiver['respond']): Promise<Receiver> {
      const r = await startReceiver(respond);
      receivers.push(r);
      return r;
    },
    dispatcher(options: Partial<WebhookDispatcherOptions> = {}): WebhookDispatcher {
      const d = new WebhookDispatcher(db(), { sender: new WebhookSender({ allowPrivateUrls: true }), pollMs: 10, kek: TEST_KEK, ...options });
      dispatchers.push(d);
      return d;
    },
    /** Stops every dispatcher (waiting for the attempts in flight) and receiver started since the last call; answers the dispatchers. */
    async stopAll(): Promise<WebhookDispatcher[]> {
      const stopped = dispatchers.splice(0);
      await Promise.all(stopped.map((d) => d.stop()));
      await Promise.all(receivers.splice(0).map((r) => r.close()));
      return stopped;
    },
  };
}

/** The key-encryption key the tests' signing secrets are sealed under: the service's (WALLET_KEK, test/support/env-setup.ts). */
export const TEST_KEK = KeyEncryptionKey.parse(process.env.WALLET_KEK!);

export interface ReceivedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
  remotePort: number | undefined;
}

export interface Answer {
  status: number;
  headers?: Record<string, string>;
  /** Wait this long before answering. */
  delayMs?: number;
  /** Never answer (the request hangs until the client gives up). */
  hang?: boolean;
}

export interface Receiver {
  url: string;
  port: number;
  requests: ReceivedRequest[];
  /** What to answer: a function of the request (and how many came before), default 200. */
  respond: (request: ReceivedRequest, index: number) => Answer;
  /** Resolves once `n` requests have arrived. */
  waitFor(n: number, timeoutMs?: number): Promise<ReceivedRequest[]>;
  close(): Promise<void>;
}

/** A real HTTP receiver on 127.0.0.1 that records every request. */
export async function startReceiver(respond: Receiver['respond'] = () => ({ status: 200 })): Promise<Receiver> {
  const requests: ReceivedRequest[] = [];
  const waiters: { n: number; resolve: () => void }[] = [];
  const receiver = { requests, respond } as Receiver;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const request: ReceivedRequest = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
        remotePort: req.socket.remotePort,
      };
      const index = requests.length;
      requests.push(request);
      for (const w of waiters.filter((w) => requests.length >= w.n)) w.resolve();
      const answer = receiver.respond(request, index);
      if (answer.hang) return;
      setTimeout(() => {
        res.writeHead(answer.status, { 'content-type': 'text/plain', ...answer.headers });
        res.end('ok');
      }, answer.delayMs ?? 0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  receiver.port = port;
  receiver.url = `http://127.0.0.1:${port}/hooks`;
  receiver.waitFor = (n, timeoutMs = 10_000) =>
    new Promise((resolve, reject) => {
      if (requests.length >= n) return resolve(requests.slice());
      const timer = setTimeout(() => reject(new Error(`receiver got ${requests.length} requests, expected ${n}`)), timeoutMs);
      waiters.push({ n, resolve: () => (clearTimeout(timer), resolve(requests.slice())) });
    });
  receiver.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return receiver;
}

/**
 * A stand-in for the payment source (libs/payments plugs in its own): `testpay-<pmt_id>`
 * streams with TestPaymentCreated {payment_id, business_id, mode, amount, currency, metadata}
 * and TestPaymentStatusChanged {status}; the view is the payment object, and each status change
 * gives `payment.<status>` (`payment.created` at first).
 */
export interface TestPayment {
  kind: 'payment';
  id: string;
  business_id: string;
  mode: 'live' | 'test';
  status: string;
  amount: number;
  currency: string;
  metadata: Record<string, string>;
  /** From the payment's checkout (another stream). */
  address?: string;
  created_at: string;
  updated_at: string;
}

export const testPaymentSource: ApiEventSource<TestPayment> = {
  name: 'test_payment',
  types: ['payment.created', 'payment.updated', 'payment.underpaid', 'payment.needs_review', 'payment.succeeded', 'payment.failed', 'payment.canceled'],
  // a payment's view also takes its checkouts' TestCheckoutOpened (stream testchk-<id>), as the real one takes CheckoutOpened
  accepts: (event) => event.stream.startsWith('testpay-') || event.stream.startsWith('testchk-'),
  viewKey: (event) => (event.stream.startsWith('testchk-') ? `testpay-${(event.data as { payment_id: string }).payment_id}` : event.stream),
  reduce(view, event) {
    const at = event.recordedAt.toISOString();
    const d = event.data as Record<string, unknown>;
    if (event.type === 'TestPaymentCreated') {
      return {
        kind: 'payment',
        id: d.payment_id as string,
        business_id: d.business_id as string,
        mode: (d.mode as 'live' | 'test') ?? 'test',
        status: 'pending',
        amount: d.amount as number,
        currency: (d.currency as string) ?? 'USD',
        metadata: (d.metadata as Record<string, string>) ?? {},
        created_at: at,
        updated_at: at,
      };
    }
    if (!view) return view;
    if (event.type === 'TestPaymentStatusChanged') return { ...view, status: d.status as string, updated_at: at };
    if (event.type === 'TestPaymentMetadataChanged') return { ...view, metadata: d.metadata as Record<string, string>, updated_at: at };
    if (event.type === 'TestCheckoutOpened') return { ...view, address: d.address as string, updated_at: at };
    return view;
  },
  map(_event: RecordedEvent, { before, after }): ApiEventDraft[] {
    if (!after) return [];
    const draft = (type: string): ApiEventDraft => ({
      type,
      subject: { kind: 'payment', id: after.id },
      data: { ...after } as unknown as Record<string, unknown>,
      business_id: after.business_id,
      mode: after.mode,
    });
    if (!before) return [draft('payment.created')];
    if (before.status !== after.status) return [draft(`payment.${after.status}`)];
    return JSON.stringify(before) === JSON.stringify(after) ? [] : [draft('payment.updated')];
  },
};

export const TEST_SOURCES = [businessEventSource, testPaymentSource];

export function testProjectors() {
  return [webhookEndpointsProjector, eventsProjector(TEST_SOURCES)];
}

/**
 * What a test worker runs beside an API-only app (ROLE=api): every projection the app waits
 * for, with the events projection fed by the test sources instead of the real ones.
 */
/**
 * The app's projectors with the webhook ones on test event sources: an API-only process waits
 * (read your writes) for every projector it knows, so the test worker runs each of them.
 */
export function testWorkerProjectors() {
  return [...READ_MODEL_PROJECTORS, ...testProjectors()];
}

/** Appends test payment events (fresh ids) to `testpay-<id>`. */
export async function appendPayment(
  store: EventStore,
  paymentId: string,
  events: { type: string; data: Record<string, unknown> }[],
  actor = { kind: 'api_key', id: 'key_test', name: null },
) {
  return store.append(
    `testpay-${paymentId}`,
    events.map((e) => ({ id: randomUUID(), type: e.type, data: e.data, metadata: { actor } })),
    'any',
  );
}

/** The position projections must reach to have seen everything appended so far. */
export const settledPosition = async (store: EventStore): Promise<LogPosition> => (await committedHead(store))!;

/** The projections webhooks need, plus a dispatcher, on a store and database (the worker's part). */
export interface WebhookWorker {
  runner: ProjectionRunner;
  dispatcher: WebhookDispatcher;
  stop(): Promise<void>;
}

export async function startWebhookWorker(
  store: EventStore,
  db: Database,
  options: Partial<WebhookDispatcherOptions> & { resolver?: Resolver; allowPrivateUrls?: boolean; timeoutMs?: number; startDispatcher?: boolean } = {},
): Promise<WebhookWorker> {
  const runner = new ProjectionRunner(store, db, testWorkerProjectors(), { batchSize: 100 });
  await runner.start();
  const sender =
    options.sender ??
    new WebhookSender({ allowPrivateUrls: options.allowPrivateUrls ?? true, resolver: options.resolver, timeoutMs: options.timeoutMs, now: options.now });
  const dispatcher = new WebhookDispatcher(db, { pollMs: 20, kek: TEST_KEK, ...options, sender });
  if (options.startDispatcher !== false) dispatcher.start();
  return {
    runner,
    dispatcher,
    stop: () => closeInTurn(() => dispatcher.stop(), () => runner.stop()),
  };
}

export { eventually } from '../support/eventually';

/**
 * The app of a `describe` block (appPerSuite) that may deliver to private URLs, and `receiver`, a
 * receiver its endpoints can deliver to; both closed after the block.
 */
export function appWithReceiver(): { readonly api: TestApi; readonly receiver: Receiver } {
  const suite = appPerSuite(() => startTestApi({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true' }), async () => ({ receiver: await startReceiver() }));
  afterAll(async () => {
    await (suite as { receiver?: Receiver }).receiver?.close();
  });
  return suite;
}

/** A new business in test mode with an endpoint on the suite's receiver subscribed to `eventTypes` (201, asserted): the business's client. */
export async function subscribedBusiness(suite: { readonly api: TestApi; readonly receiver: Receiver }, eventTypes: readonly string[]): Promise<Client> {
  const { client } = await businessWithKey(suite.api, true);
  await client.created('/webhooks', { url: suite.receiver.url, event_types: eventTypes });
  return client;
}

/** The bodies of the first `n` deliveries the receiver gets (waiting up to 20 s), parsed. */
export async function receivedEvents(receiver: Receiver, n: number) {
  return (await receiver.waitFor(n, 20_000)).map((r) => JSON.parse(r.body));
}

/** A wall clock the test moves by hand. */
export function manualClock(start = Date.now()) {
  let t = start;
  return { now: () => new Date(t), advance: (ms: number) => void (t += ms), set: (ms: number) => void (t = ms) };
}

/**
 * The endpoint use cases on a store and database, outside Nest: each method builds the command
 * and runs its handler, as the command bus does for the API.
 */
export function endpointCommands(store: EventStore, db: Database, readModels: ReadModelWaiter, options: WebhooksOptions) {
  const runner = new CommandRunner(store, readModels);
  const secrets = new WebhookSecretStore(db, TEST_KEK);
  const endpoints = new EndpointWrites(runner, store, secrets, options);
  const create = new CreateEndpointHandler(endpoints);
  const update = new UpdateEndpointHandler(endpoints);
  const remove = new DeleteEndpointHandler(endpoints);
  const rotate = new RotateSecretHandler(endpoints);
  return {
    create: (businessId: string, input: Record<string, unknown>, meta?: WriteMeta) => create.execute(new CreateEndpointCommand(businessId, input, null, meta)),
    update: (businessId: string, webhookId: string, input: Record<string, unknown>, meta?: WriteMeta) => update.execute(new UpdateEndpointCommand(businessId, webhookId, input, null, meta)),
    delete: (businessId: string, webhookId: string, meta?: WriteMeta) => remove.execute(new DeleteEndpointCommand(businessId, webhookId, meta)),
    rotateSecret: (businessId: string, webhookId: string, meta?: WriteMeta) => rotate.execute(new RotateSecretCommand(businessId, webhookId, null, meta)),
  };
}

/** A store with the webhook use cases on it, outside Nest: what `webhookStorePerSuite` gives a block. */
export interface WebhookStore {
  store: EventStore;
  db: Database;
  /** What another process takes to open the same store (DATABASE_URL, or DATA_DIR). */
  env: TestStore['env'];
  /** The projection runner of the moment. */
  readonly runner: ProjectionRunner;
  endpoints: ReturnType<typeof endpointCommands>;
  businesses: BusinessService;
  /** Starts a new runner over the block's projectors (after a test stopped the last one). */
  startRunner(): Promise<void>;
  /** Waits (20 s at most, asserted) until the runner has applied all that was committed. */
  settle(): Promise<void>;
}

/**
 * For a `describe` block: a fresh store of `kind` (openTestStore) with a projection runner over
 * `projectors` started on it, the endpoint use cases and the business service, both waiting on
 * the runner of the moment. Opened before the block's first test; after its last, the runner is
 * stopped and the store cleaned up. Read the fields inside tests and hooks, after its beforeAll.
 */
export function webhookStorePerSuite(
  kind: StoreKind,
  prefix: string,
  projectors: readonly Projector[],
  options: { allowPrivateUrls: boolean; runner?: ConstructorParameters<typeof ProjectionRunner>[3] },
): WebhookStore {
  let opened: TestStore | undefined;
  let runner: ProjectionRunner | undefined;
  const suite = {
    get runner(): ProjectionRunner {
      if (runner === undefined) throw new Error('webhookStorePerSuite: no runner (read it inside tests and hooks, after its beforeAll)');
      return runner;
    },
    startRunner: async () => {
      runner = new ProjectionRunner(suite.store, suite.db, projectors, options.runner);
      await runner.start();
    },
    settle: async () => expect(await suite.runner.waitFor(await settledPosition(suite.store), 20_000)).toBe(true),
  } as WebhookStore;
  beforeAll(async () => {
    opened = await openTestStore(kind, prefix);
    Object.assign(suite, { store: opened.store, db: opened.db, env: opened.env });
    await suite.startRunner();
    const waiter = { waitFor: (position: LogPosition, timeoutMs?: number) => suite.runner.waitFor(position, timeoutMs) }; // the runner of the moment
    Object.assign(suite, { endpoints: endpointCommands(opened.store, opened.db, waiter, { allowPrivateUrls: options.allowPrivateUrls }), businesses: new BusinessService(opened.store, opened.db, waiter) });
  }, 60_000);
  afterAll(async () => {
    await runner?.stop();
    await opened?.cleanup();
  });
  return suite;
}
