import { createHash } from 'node:crypto';
import { base58Encode } from '@lib/chains';
import type { RecordedEvent } from '@lib/eventstore';
import { WalletTransactionView, WalletTransactionsReadModel, walletTransactionsProjector } from '@lib/wallets';
import { walletTransactionEventSource } from '../../../libs/webhooks/src';
import { eventsProjectionPerSuite, writtenEvents } from '../../support/events-projection';

/**
 * The `wallet_transaction.*` API events carry the wallet transaction as GET
 * /wallet/transactions/{id} returns it at that event (spec §6; decision 0040): signed ETH and SOL
 * sends valued at the rate kept on their record (the audit found `value_usd: null` in their
 * events while the endpoint showed it), a stablecoin at par, a live send's fee priced on its
 * confirmation, an external record valued when the chain proves it, a failure; holds and releases
 * between them. The `wallet_transactions` projection is applied event by event and read after each
 * one; the events projection in batches of every size from 1 to the whole log.
 */

const BUSINESS = 'biz_wtxev';
const WALLET = 'wal_wtxev';
const STREAM = `wallet_tx-${WALLET}`;
const START = Date.parse('2026-04-01T00:00:00.000Z');
const FROM_EVM = '0x2222222222222222222222222222222222222222';
const TO_EVM = '0x1111111111111111111111111111111111111111';
const FROM_SOL = '7EcDhSYGxXyscszYEp35KHN8vvw3svAuLKTzXwCFLtV';
const TO_SOL = 'So11111111111111111111111111111111111111112';

const hexHash = (id: string) => `0x${createHash('sha256').update(id).digest('hex')}`;
const solanaSignature = (id: string) => base58Encode(Buffer.concat([createHash('sha256').update(id).digest(), createHash('sha256').update(`${id}/2`).digest()]));

const recorded = (id: string, more: Record<string, unknown>) => ({
  type: 'WalletTransactionRecorded',
  data: {
    wallet_transaction_id: id,
    wallet_id: WALLET,
    business_id: BUSINESS,
    mode: 'test',
    kind: 'signed',
    asset: 'ETH',
    network: 'ethereum',
    units: '1000000000000000000',
    from_address: FROM_EVM,
    to_address: TO_EVM,
    tx_hash: hexHash(id),
    speed: 'standard',
    note: null,
    max_fee_units: '42000000000000',
    raw: '0x02',
    ...more,
  },
});
const confirmed = (id: string, more: Record<string, unknown> = {}) => ({ type: 'WalletTransactionConfirmed', data: { wallet_transaction_id: id, fee_units: '21000000000000', block: 7, ...more } });

function logOf(): RecordedEvent[] {
  const steps: { type: string; data: Record<string, unknown> }[] = [
    // ETH at 3000.00: 1 ETH = 300000 cents, kept on the record
    recorded('wtx_eth', { value_usd: 300_000, network_fee_usd: 13 }),
    // SOL at 150.00: 10 SOL = 150000 cents
    { type: 'WalletSendReserved', data: recorded('wtx_sol', {}).data },
    recorded('wtx_sol', { asset: 'SOL', network: 'solana', units: '10000000000', from_address: FROM_SOL, to_address: TO_SOL, tx_hash: solanaSignature('wtx_sol'), value_usd: 150_000 }),
    // a stablecoin without a kept value: at par
    recorded('wtx_usdc', { asset: 'USDC', units: '12345678' }),
    // a coin without a rate: null until a rate says otherwise
    recorded('wtx_norate', { value_usd: null }),
    // an external record: zero until the chain proves it, then the rate of that time
    recorded('wtx_ext', { kind: 'external', from_address: null, max_fee_units: null, raw: null }),
    { type: 'WalletSendReserved', data: recorded('wtx_gone', {}).data },
    { type: 'WalletSendReleased', data: { wallet_transaction_id: 'wtx_gone', reason: 'node_refused' } },
    confirmed('wtx_eth'),
    confirmed('wtx_sol', { fee_units: '5000', network_fee_usd: 1 }),
    recorded('wtx_eth', { value_usd: 1 }), // the same record again changes nothing
    confirmed('wtx_usdc', { network_fee_usd: 42 }),
    confirmed('wtx_ext', { value_usd: 612_345, network_fee_usd: 99 }),
    { type: 'WalletTransactionFailed', data: { wallet_transaction_id: 'wtx_norate', reason: 'not_found_on_chain' } },
    confirmed('wtx_norate'), // after its failure: nothing
  ];
  return steps.map((step, n) => ({
    id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
    type: step.type,
    data: step.data,
    metadata: { occurredAt: new Date(START + n * 60_000).toISOString() },
    stream: STREAM,
    revision: n,
    position: { commit: BigInt(n + 1), prepare: BigInt(n + 1) },
    recordedAt: new Date(START + n * 60_000 + 5),
  }));
}

describe('wallet_transaction.* event data = GET /wallet/transactions/{id} at that event', () => {
  const { store, events } = eventsProjectionPerSuite('wtxevents', walletTransactionsProjector, [walletTransactionEventSource]);

  it('for every batch size of the events projection: ETH and SOL valued, stablecoins at par, fees and external values on confirmation, failures', async () => {
    const log = logOf();
    const reads = new WalletTransactionsReadModel(store.db);
    const ids = ['wtx_eth', 'wtx_sol', 'wtx_usdc', 'wtx_norate', 'wtx_ext'];
    await store.db.exec('DELETE FROM wallet_transactions; DELETE FROM wallet_send_reservations;');
    const answers = new Map<string, Map<string, WalletTransactionView>>();
    for (const event of log) {
      await store.db.transaction((tx) => walletTransactionsProjector.handle([event], tx));
      const now = new Map<string, WalletTransactionView>();
      for (const id of ids) {
        const found = await reads.get(BUSINESS, id);
        if (found) now.set(id, found);
      }
      answers.set(event.id, now);
    }
    const byId = (id: string) => answers.get(log[log.length - 1].id)!.get(id)!;
    // what the endpoint shows in the end (the projection's own rules)
    expect(ids.map((id) => [id, byId(id).status, byId(id).value_usd, byId(id).network_fee_usd])).toEqual([
      ['wtx_eth', 'confirmed', 300_000, 13],
      ['wtx_sol', 'confirmed', 150_000, 1],
      ['wtx_usdc', 'confirmed', 1235, 42],
      ['wtx_norate', 'failed', null, null],
      ['wtx_ext', 'confirmed', 612_345, 0],
    ]);

    for (let size = 1; size <= log.length; size++) {
      await store.db.exec('DELETE FROM events; DELETE FROM event_source_views; DELETE FROM event_source_links;');
      for (let i = 0; i < log.length; i += size) await store.db.transaction((tx) => events.handle(log.slice(i, i + size), tx));
      const sent = await writtenEvents<WalletTransactionView>(store.db);
      expect(sent.map((s) => [s.event.type, s.event.subject.id])).toEqual([
        ['wallet_transaction.confirmed', 'wtx_eth'],
        ['wallet_transaction.confirmed', 'wtx_sol'],
        ['wallet_transaction.confirmed', 'wtx_usdc'],
        ['wallet_transaction.confirmed', 'wtx_ext'],
        ['wallet_transaction.failed', 'wtx_norate'],
      ]);
      for (const { source, event } of sent) expect({ size, data: event.data }).toEqual({ size, data: answers.get(source)!.get(event.subject.id) });
    }
  });

  it('a send pending across the upgrade (its view stored in the first version’s shape) still gives its event, with the object it showed', () => {
    const log = logOf();
    const stored = {
      object: {
        kind: 'wallet_transaction',
        id: 'wtx_eth',
        direction: 'out',
        status: 'pending',
        origin: 'signed',
        asset: 'ETH',
        network: 'ethereum',
        amount: '1',
        value_usd: null,
        network_fee_usd: null,
        address: FROM_EVM,
        from_address: FROM_EVM,
        to_address: TO_EVM,
        tx_hash: hexHash('wtx_eth'),
        explorer_url: `https://etherscan.io/tx/${hexHash('wtx_eth')}`,
        payment_id: null,
        speed: 'standard',
        note: null,
        failure_reason: null,
        created_at: '2026-04-01T00:00:00.000Z',
        confirmed_at: null,
        failed_at: null,
      },
      business_id: BUSINESS,
      mode: 'test',
      units: '1000000000000000000',
    };
    const confirmation = log.find((e) => e.type === 'WalletTransactionConfirmed')!;
    const after = walletTransactionEventSource.reduce!(stored as never, confirmation);
    const [draft] = walletTransactionEventSource.map(confirmation, { before: stored as never, after });
    expect(draft).toMatchObject({
      type: 'wallet_transaction.confirmed',
      business_id: BUSINESS,
      mode: 'test',
      data: { ...stored.object, status: 'confirmed', confirmed_at: confirmation.metadata.occurredAt },
    });
  });
});
