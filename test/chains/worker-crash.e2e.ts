/**
 * The worker killed mid-scan (issue 11): an API process and a worker process on PostgreSQL, the
 * worker watching a local EVM chain (anvil). Customers pay twenty checkouts while the worker is
 * SIGKILLed and started again; afterwards every payment succeeds with exactly one detection of its
 * transfer and its four confirmations — nothing missed, nothing doubled.
 */
import { BusinessService } from '@lib/businesses';
import { openEventStore } from '@lib/eventstore';
import { ProjectionRunner } from '@lib/projections';
import { ALL_PROJECTORS } from '@lib/wiring';
import { AnvilNode, Hex, startAnvil } from '../support/anvil';
import { eventually } from '../support/eventually';
import { TestDatabase, createTestDatabase } from '../support/postgres';
import { ApiAndWorker, startApiAndWorker, startWorker, stopProcess } from '../support/processes';
import { compileContract } from '../support/solidity';

const TOKEN_ABI = [{ type: 'function', name: 'transfer', stateMutability: 'nonpayable', inputs: [{ name: 'to', type: 'address' }, { name: 'value', type: 'uint256' }], outputs: [{ type: 'bool' }] }, { type: 'function', name: 'mint', stateMutability: 'nonpayable', inputs: [{ name: 'to', type: 'address' }, { name: 'value', type: 'uint256' }], outputs: [] }] as const;

describe('a worker SIGKILLed while it watches a chain misses nothing and doubles nothing', () => {
  let database: TestDatabase;
  let chain: AnvilNode;
  let usdc: Hex;
  let services: ApiAndWorker;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    database = await createTestDatabase('wcrash');
    chain = await startAnvil({ chainId: 1 });
    usdc = await chain.deploy(0, compileContract('TestUSDC.sol', 'TestUSDC'));
    await chain.send(0, { to: usdc, data: chain.viem.encodeFunctionData({ abi: TOKEN_ABI, functionName: 'mint', args: [chain.address(1), 10n ** 12n] }) });
    env = { DATABASE_URL: database.url, LOG_LEVEL: 'warn', EVM_RPC_URL_ETHEREUM: chain.url, EVM_TOKENS_ETHEREUM: `USDC=${usdc}`, CHAIN_POLL_MS: '50' };
    services = await startApiAndWorker(env);
  }, 120_000);

  afterAll(async () => {
    await services?.stop();
    await chain?.close();
    await database?.drop();
  });

  it('twenty payments paid around a SIGKILL of the worker all succeed, each transfer detected once', async () => {
    const opened = await openEventStore({ databaseUrl: database.url });
    let key: string;
    try {
      const writer = new BusinessService(opened.store, opened.db, new ProjectionRunner(opened.store, opened.db, ALL_PROJECTORS));
      key = (await writer.createBusiness({ name: 'Crash Coffee', simulated: false })).secret_key;
    } finally {
      await opened.close();
    }
    const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
      const r = await fetch(`${services.base}${path}`, { method, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers }, body: body === undefined ? undefined : JSON.stringify(body) });
      return { status: r.status, body: (await r.json()) as any };
    };
    expect((await call('POST', '/wallet', { type: 'created' })).status).toBe(201);
    const checkouts: { payment: string; address: string }[] = [];
    for (let i = 0; i < 20; i++) {
      const payment = (await call('POST', '/payments', { amount: 100 + i, currency: 'USD' })).body.data;
      const checkout = await call('POST', '/checkouts', { payment_code: payment.url.split('/').pop(), asset: 'USDC', network: 'ethereum' }, { 'idempotency-key': `crash-${i}` });
      expect(checkout.status).toBe(201);
      checkouts.push({ payment: payment.id, address: checkout.body.data.crypto.address });
    }
    const pay = (i: number) => chain.send(1, { to: usdc, data: chain.viem.encodeFunctionData({ abi: TOKEN_ABI, functionName: 'transfer', args: [checkouts[i].address as Hex, BigInt(100 + i) * 10_000n] }) });

    // the first ten while the worker watches; it is killed as soon as it has seen some of them
    for (let i = 0; i < 10; i++) await pay(i);
    await eventually(() => call('GET', `/payments/${checkouts[0].payment}`), (r) => r.body.data.events.some((e: { type: string }) => e.type === 'detected'), { what: 'first transfer detected' });
    await stopProcess(services.worker, 'SIGKILL');
    // the rest while no worker runs, and blocks on top
    for (let i = 10; i < 20; i++) await pay(i);
    await chain.mine(2);
    services.worker = startWorker(env);
    await chain.mine(4);

    for (const { payment } of checkouts) {
      const paid = await eventually(() => call('GET', `/payments/${payment}`).then((r) => r.body.data), (p) => p.status === 'succeeded', { what: `${payment} succeeded\n${services.worker.log()}`, timeoutMs: 60_000 });
      const types = paid.events.map((e: { type: string }) => e.type);
      expect({ payment, detected: types.filter((t: string) => t === 'detected').length, confirmations: types.filter((t: string) => t === 'confirmation').length }).toEqual({ payment, detected: 1, confirmations: 4 });
    }
  }, 180_000);
});
