import { DomainRefusal } from '@lib/domain';
import { SenderFunds, WalletSendCommand, WalletTransactionConfirmedData, WalletTransactionEvent, WalletTransactionRecordedData, fundingTransaction, walletSendsDecider } from '@lib/wallets';
import { thrownBy } from '../support/thrown';

/** given(events).when(command).then(events | refusal code and field), on the wallet sends decider (decision 0040). */
function given(events: WalletTransactionEvent[]) {
  const state = events.reduce(walletSendsDecider.evolve, walletSendsDecider.initialState);
  return {
    when: (command: WalletSendCommand) => ({
      then: (expected: WalletTransactionEvent[]) => expect(walletSendsDecider.decide(command, state, undefined)).toEqual(expected),
      refused: (code: string, field: string | null = null) => {
        const refusal = thrownBy(DomainRefusal, () => walletSendsDecider.decide(command, state, undefined));
        expect({ code: refusal.code, field: refusal.field }).toEqual({ code, field });
      },
    }),
  };
}

const FROM = '0xAbC0000000000000000000000000000000000001';
const send = (id: string, fields: Partial<WalletTransactionRecordedData> = {}): WalletTransactionRecordedData => ({
  wallet_transaction_id: id,
  wallet_id: 'wal_1',
  business_id: 'biz_1',
  mode: 'live',
  kind: 'signed',
  asset: 'USDC',
  network: 'ethereum',
  units: '10000000',
  from_address: FROM,
  to_address: '0x1111111111111111111111111111111111111111',
  tx_hash: `0x${id.slice(-2).padStart(64, '0')}`,
  speed: 'standard',
  note: null,
  max_fee_units: '1000',
  raw: '0x02',
  ...fields,
});
/** 25 USDC and 2000 wei of ETH received at FROM. */
const funds: SenderFunds = { asset: 25_000_000n, feeCoin: 2_000n, feeAsset: 'ETH' };
const reserve = (data: WalletTransactionRecordedData, f: SenderFunds | null = funds): WalletSendCommand => ({ type: 'ReserveWalletSend', data, funds: f });
const record = (data: WalletTransactionRecordedData, f: SenderFunds | null = funds): WalletSendCommand => ({ type: 'RecordWalletTransaction', data, funds: f });

describe('wallet sends decider (one stream per wallet)', () => {
  it('holds a signed send, then records it once relayed', () => {
    given([]).when(reserve(send('wtx_01'))).then([{ type: 'WalletSendReserved', data: send('wtx_01') }]);
    given([{ type: 'WalletSendReserved', data: send('wtx_01') }]).when(record(send('wtx_01'))).then([{ type: 'WalletTransactionRecorded', data: send('wtx_01') }]);
    given([{ type: 'WalletTransactionRecorded', data: send('wtx_01') }]).when(record(send('wtx_01'))).then([]);
  });

  it('refuses a hash held or recorded (409 duplicate_transaction); a released hold frees it', () => {
    given([{ type: 'WalletSendReserved', data: send('wtx_01') }]).when(reserve(send('wtx_02', { tx_hash: send('wtx_01').tx_hash }))).refused('duplicate_transaction', 'signed_transaction');
    given([{ type: 'WalletTransactionRecorded', data: send('wtx_01', { kind: 'external' }) }]).when(record(send('wtx_02', { kind: 'external', tx_hash: send('wtx_01').tx_hash }), null)).refused('duplicate_transaction', 'tx_hash');
    given([
      { type: 'WalletSendReserved', data: send('wtx_01') },
      { type: 'WalletSendReleased', data: { wallet_transaction_id: 'wtx_01', reason: 'transaction_rejected' } },
    ])
      .when(reserve(send('wtx_02', { tx_hash: send('wtx_01').tx_hash })))
      .then([{ type: 'WalletSendReserved', data: send('wtx_02', { tx_hash: send('wtx_01').tx_hash }) }]);
  });

  it('never holds more than the address received: 409 insufficient_funds, then insufficient_fee_funds for the fee coin', () => {
    const held: WalletTransactionEvent[] = [{ type: 'WalletTransactionRecorded', data: send('wtx_01', { units: '20000000' }) }];
    given(held).when(reserve(send('wtx_02', { units: '5000001' }))).refused('insufficient_funds', 'amount');
    given(held).when(reserve(send('wtx_02', { units: '5000000', max_fee_units: '1001' }))).refused('insufficient_fee_funds', 'signed_transaction');
    given(held).when(reserve(send('wtx_02', { units: '5000000' }))).then([{ type: 'WalletSendReserved', data: send('wtx_02', { units: '5000000' }) }]);
    // a failed send gives its hold back
    given([...held, { type: 'WalletTransactionFailed', data: { wallet_transaction_id: 'wtx_01', reason: 'reverted' } }])
      .when(reserve(send('wtx_02', { units: '25000000' })))
      .then([{ type: 'WalletSendReserved', data: send('wtx_02', { units: '25000000' }) }]);
  });

  it('a coin send pays its own fee: amount, then amount plus the greatest fee', () => {
    const ethFunds: SenderFunds = { asset: 10_000n, feeCoin: 10_000n, feeAsset: 'ETH' };
    const eth = (id: string, units: string, fee: string) => send(id, { asset: 'ETH', units, max_fee_units: fee });
    given([]).when(reserve(eth('wtx_01', '10001', '0'), ethFunds)).refused('insufficient_funds', 'amount');
    given([]).when(reserve(eth('wtx_01', '9000', '1001'), ethFunds)).refused('insufficient_fee_funds', 'signed_transaction');
    given([{ type: 'WalletTransactionRecorded', data: eth('wtx_01', '4000', '1000') }]).when(reserve(eth('wtx_02', '5001', '0'), ethFunds)).refused('insufficient_funds', 'amount');
  });

  it('an EIP-3009 send: the USDC is the sender’s, the fee its submitter’s (fee_payer) — held on each', () => {
    const PAYER = '0xAbC0000000000000000000000000000000000002';
    const authorized = (id: string, fields: Partial<WalletTransactionRecordedData> = {}) => send(id, { fee_payer: PAYER, max_fee_units: '1500', ...fields });
    // the sender holds 25 USDC and no ETH; the payer's 2000 wei pay the fee
    const senderAndPayer: SenderFunds = { asset: 25_000_000n, feeCoin: 2_000n, feeAsset: 'ETH' };
    given([]).when(reserve(authorized('wtx_01'), senderAndPayer)).then([{ type: 'WalletSendReserved', data: authorized('wtx_01') }]);
    const held: WalletTransactionEvent[] = [{ type: 'WalletTransactionRecorded', data: authorized('wtx_01') }];
    // the payer's fee is held: a second authorization whose fee passes what is left of its coin
    given(held).when(reserve(authorized('wtx_02', { max_fee_units: '501' }), senderAndPayer)).refused('insufficient_fee_funds', 'signed_transaction');
    // the sender's USDC is held: 15 USDC left
    given(held).when(reserve(authorized('wtx_02', { units: '15000001', max_fee_units: '500' }), senderAndPayer)).refused('insufficient_funds', 'amount');
    // the sender's own coin is untouched by the payer's fee: its own transfer is judged on its own ETH (none here)
    given(held).when(reserve(send('wtx_02', { units: '1000000', max_fee_units: '1' }), { ...senderAndPayer, feeCoin: 0n })).refused('insufficient_fee_funds', 'signed_transaction');
    given(held).when(reserve(send('wtx_02', { units: '1000000', max_fee_units: '1000' }), { ...senderAndPayer, feeCoin: 1_000n })).then([{ type: 'WalletSendReserved', data: send('wtx_02', { units: '1000000', max_fee_units: '1000' }) }]);
  });

  it('a funding transaction: its coin is the funder’s (value and greatest fee) and the sender’s fee coin', () => {
    const FUNDER = '0xAbC0000000000000000000000000000000000003';
    const funding = { from: FUNDER, tx_hash: `0x${'f'.repeat(64)}`, units: '3000', max_fee_units: '500', raw: '0x02' };
    // the sender holds no ETH: the 3000 wei funding pays its 1000 fee
    const noGas: SenderFunds = { asset: 25_000_000n, feeCoin: 0n, feeAsset: 'ETH', funderCoin: 4_000n };
    given([]).when(reserve(send('wtx_01'), noGas)).refused('insufficient_fee_funds', 'signed_transaction');
    given([]).when(reserve(send('wtx_01', { funding }), noGas)).then([{ type: 'WalletSendReserved', data: send('wtx_01', { funding }) }]);
    // the funder cannot give more than it holds beside its own sends
    given([]).when(reserve(send('wtx_01', { funding }), { ...noGas, funderCoin: 3_499n })).refused('insufficient_fee_funds', 'funding_transaction');
    const funded: WalletTransactionEvent[] = [{ type: 'WalletTransactionRecorded', data: send('wtx_01', { funding }) }];
    // funder: 4000 - 3500 = 500 left; a second funding of 400 + 200 passes it
    given(funded).when(reserve(send('wtx_02', { funding: { ...funding, units: '400', max_fee_units: '200' } }), noGas)).refused('insufficient_fee_funds', 'funding_transaction');
    // the sender keeps what its first funding left: 3000 - 1000 = 2000 wei for the next fee
    given(funded).when(reserve(send('wtx_02', { max_fee_units: '2001' }), noGas)).refused('insufficient_fee_funds', 'signed_transaction');
    given(funded).when(reserve(send('wtx_02', { max_fee_units: '2000' }), noGas)).then([{ type: 'WalletSendReserved', data: send('wtx_02', { max_fee_units: '2000' }) }]);
  });

  describe('a funding transaction is a wallet transaction of its own (addendum 2026-11-28)', () => {
    const FUNDER = '0xAbC0000000000000000000000000000000000003';
    const funding = { from: FUNDER, tx_hash: `0x${'f'.repeat(64)}`, units: '3000', max_fee_units: '500', raw: '0x02' };
    // the sender holds no ETH; the funder 4000 wei
    const noGas: SenderFunds = { asset: 25_000_000n, feeCoin: 0n, feeAsset: 'ETH', funderCoin: 4_000n };
    /** The funding of send `sendId` as its own record `id`. */
    const own = (sendId: string, id = 'wtx_f1') => fundingTransaction(send(sendId, { funding }), id, 'ETH', { value_usd: 900, network_fee_usd: 0 });
    /** The send as held: naming its funding's record. */
    const naming = (sendId: string, id = 'wtx_f1', fields: Partial<WalletTransactionRecordedData> = {}) => send(sendId, { ...fields, funding: { ...funding, wallet_transaction_id: id } });
    const fundedReserve = (sendId: string, f: SenderFunds = noGas, id = 'wtx_f1'): WalletSendCommand => ({ type: 'ReserveWalletSend', data: send(sendId, { funding }), funds: f, fundingRecord: own(sendId, id) });
    /** The send refused after its funding was relayed: the send released, the funding recorded (pending). */
    const refused: WalletTransactionEvent[] = [
      { type: 'WalletSendReserved', data: own('wtx_01') },
      { type: 'WalletSendReserved', data: naming('wtx_01') },
      { type: 'WalletTransactionRecorded', data: own('wtx_01') },
      { type: 'WalletSendReleased', data: { wallet_transaction_id: 'wtx_01', reason: 'transaction_rejected' } },
    ];

    it('is the network coin from the funder to the sender, held with its send (live) or recorded with it (simulated); the send names it', () => {
      expect(own('wtx_01')).toEqual({ ...send('wtx_f1', { asset: 'ETH', units: '3000', from_address: FUNDER, to_address: FROM, tx_hash: funding.tx_hash, max_fee_units: '500', raw: '0x02' }), funding_of: 'wtx_01', value_usd: 900, network_fee_usd: 0 });
      given([]).when(fundedReserve('wtx_01')).then([
        { type: 'WalletSendReserved', data: own('wtx_01') },
        { type: 'WalletSendReserved', data: naming('wtx_01') },
      ]);
      given([]).when({ type: 'RecordWalletTransaction', data: send('wtx_01', { funding }), funds: noGas, fundingRecord: own('wtx_01') }).then([
        { type: 'WalletTransactionRecorded', data: own('wtx_01') },
        { type: 'WalletTransactionRecorded', data: naming('wtx_01') },
      ]);
      // the funder is checked as before
      given([]).when(fundedReserve('wtx_01', { ...noGas, funderCoin: 3_499n })).refused('insufficient_fee_funds', 'funding_transaction');
    });

    it('stays on the books when its send is released: the funder’s coin held (value and greatest fee), the sender credited — until it fails', () => {
      // the funder: 4000 - 3500 = 500 left; another funding of 400 + 200 passes it
      const other = { ...funding, tx_hash: `0x${'e'.repeat(64)}`, units: '400', max_fee_units: '200' };
      given(refused)
        .when({ type: 'ReserveWalletSend', data: send('wtx_02', { funding: other }), funds: noGas, fundingRecord: fundingTransaction(send('wtx_02', { funding: other }), 'wtx_f2', 'ETH', { value_usd: null, network_fee_usd: null }) })
        .refused('insufficient_fee_funds', 'funding_transaction');
      // the sender: the pending funding's 3000 wei pay a fee of 3000, not one more
      given(refused).when(reserve(send('wtx_02', { max_fee_units: '3001' }), noGas)).refused('insufficient_fee_funds', 'signed_transaction');
      given(refused).when(reserve(send('wtx_02', { max_fee_units: '3000' }), noGas)).then([{ type: 'WalletSendReserved', data: send('wtx_02', { max_fee_units: '3000' }) }]);
      // confirmed: still held and credited
      const confirmed: WalletTransactionEvent[] = [...refused, { type: 'WalletTransactionConfirmed', data: { wallet_transaction_id: 'wtx_f1', fee_units: '420', block: 9 } }];
      given(confirmed).when(reserve(send('wtx_02', { max_fee_units: '3001' }), noGas)).refused('insufficient_fee_funds', 'signed_transaction');
      // failed (it never landed): the funder's hold given back, the sender's credit gone
      const failed: WalletTransactionEvent[] = [...refused, { type: 'WalletTransactionFailed', data: { wallet_transaction_id: 'wtx_f1', reason: 'dropped' } }];
      given(failed).when(reserve(send('wtx_02', { max_fee_units: '1' }), noGas)).refused('insufficient_fee_funds', 'signed_transaction');
      // the same funding again leans on its failed record: it brings nothing
      given(failed).when(fundedReserve('wtx_02', { ...noGas, funderCoin: 3_500n }, 'wtx_f2')).refused('insufficient_fee_funds', 'signed_transaction');
    });

    it('a send again with the same funding leans on its record: neither held nor credited twice, not recorded again', () => {
      // the funder's coin is held by the record already: a funder holding nothing more is not refused
      given(refused).when(fundedReserve('wtx_02', { ...noGas, funderCoin: 0n }, 'wtx_f2')).then([{ type: 'WalletSendReserved', data: naming('wtx_02', 'wtx_f1') }]);
      // the sender is credited once: 3000 wei for this send's fee and any other
      const leaning: WalletTransactionEvent[] = [...refused, { type: 'WalletSendReserved', data: naming('wtx_02', 'wtx_f1', { max_fee_units: '2000' }) }];
      given(leaning).when(reserve(send('wtx_03', { max_fee_units: '1001' }), noGas)).refused('insufficient_fee_funds', 'signed_transaction');
      given(leaning).when(reserve(send('wtx_03', { max_fee_units: '1000' }), noGas)).then([{ type: 'WalletSendReserved', data: send('wtx_03', { max_fee_units: '1000' }) }]);
      // its hash held by a transaction that is not this funding: 409 duplicate_transaction on funding_transaction
      given([{ type: 'WalletTransactionRecorded', data: send('wtx_09', { asset: 'ETH', tx_hash: funding.tx_hash }) }]).when(fundedReserve('wtx_01')).refused('duplicate_transaction', 'funding_transaction');
    });
  });

  describe('a fee coin the service does not track (POL on Polygon): the token against its holdings, no fee-coin rule', () => {
    // 50 USDC received at FROM on Polygon; POL is never received through checkouts (feeAsset null)
    const polygon = (id: string, fields: Partial<WalletTransactionRecordedData> = {}) => send(id, { network: 'polygon', max_fee_units: (65_000n * 50_000_000_000n).toString(), ...fields });
    const untracked: SenderFunds = { asset: 50_000_000n, feeCoin: 0n, feeAsset: null };

    it('given 1.5 USDC sent, 48.5 more fit and 48.500001 is 409 insufficient_funds; 1000 is refused; a held send counts, a released one gives it back', () => {
      const sent: WalletTransactionEvent[] = [{ type: 'WalletTransactionRecorded', data: polygon('wtx_01', { units: '1500000' }) }];
      given(sent).when(reserve(polygon('wtx_02', { units: '48500001' }), untracked)).refused('insufficient_funds', 'amount');
      given(sent).when(record(polygon('wtx_02', { units: '1000000000' }), untracked)).refused('insufficient_funds', 'amount');
      given(sent).when(reserve(polygon('wtx_02', { units: '48500000' }), untracked)).then([{ type: 'WalletSendReserved', data: polygon('wtx_02', { units: '48500000' }) }]);
      const all: WalletTransactionEvent[] = [...sent, { type: 'WalletSendReserved', data: polygon('wtx_02', { units: '48500000' }) }];
      given(all).when(record(polygon('wtx_03', { units: '1' }), untracked)).refused('insufficient_funds', 'amount');
      given([...all, { type: 'WalletSendReleased', data: { wallet_transaction_id: 'wtx_02', reason: 'transaction_rejected' } }])
        .when(record(polygon('wtx_03', { units: '48500000' }), untracked))
        .then([{ type: 'WalletTransactionRecorded', data: polygon('wtx_03', { units: '48500000' }) }]);
    });

    it('a fresh address (nothing received) cannot send 500 USDT', () => {
      given([]).when(record(polygon('wtx_01', { asset: 'USDT', units: '500000000' }), { asset: 0n, feeCoin: 0n, feeAsset: null })).refused('insufficient_funds', 'amount');
    });

    it('the fee, an EIP-3009 submitter’s fee and a funding transaction are not held against POL (the node judges them); Ethereum’s fee coin still is', () => {
      given([]).when(reserve(polygon('wtx_01'), untracked)).then([{ type: 'WalletSendReserved', data: polygon('wtx_01') }]);
      const PAYER = '0xAbC0000000000000000000000000000000000002';
      given([]).when(reserve(polygon('wtx_01', { fee_payer: PAYER }), untracked)).then([{ type: 'WalletSendReserved', data: polygon('wtx_01', { fee_payer: PAYER }) }]);
      const funding = { from: PAYER, tx_hash: `0x${'f'.repeat(64)}`, units: '3000', max_fee_units: '500', raw: '0x02' };
      given([]).when(reserve(polygon('wtx_01', { funding }), untracked)).then([{ type: 'WalletSendReserved', data: polygon('wtx_01', { funding }) }]);
      given([]).when(reserve(send('wtx_01'), { asset: 50_000_000n, feeCoin: 0n, feeAsset: 'ETH' })).refused('insufficient_fee_funds', 'signed_transaction');
    });
  });

  it('external records hold nothing; pending ones settle once; unknown or held ids are not_found', () => {
    const external = send('wtx_01', { kind: 'external', from_address: null, max_fee_units: null, raw: null, units: '999000000' });
    given([]).when(record(external, null)).then([{ type: 'WalletTransactionRecorded', data: external }]);
    const pending: WalletTransactionEvent[] = [{ type: 'WalletTransactionRecorded', data: send('wtx_01') }];
    given(pending).when({ type: 'ConfirmWalletTransaction', walletTransactionId: 'wtx_01', feeUnits: '21', block: 7, confirmations: 4 }).then([{ type: 'WalletTransactionConfirmed', data: { wallet_transaction_id: 'wtx_01', fee_units: '21', block: 7 } }]);
    given([...pending, { type: 'WalletTransactionConfirmed', data: { wallet_transaction_id: 'wtx_01', fee_units: null, block: null } }]).when({ type: 'FailWalletTransaction', walletTransactionId: 'wtx_01', reason: 'late' }).then([]);
    given([{ type: 'WalletSendReserved', data: send('wtx_01') }]).when({ type: 'ConfirmWalletTransaction', walletTransactionId: 'wtx_01' }).refused('not_found');
    given([]).when({ type: 'FailWalletTransaction', walletTransactionId: 'wtx_09', reason: 'x' }).refused('not_found');
  });

  describe('a live send’s chain verdict is taken once its block is final: the confirmations incoming transfers need (4 on Ethereum, 32 slots on Solana)', () => {
    const recorded = (data: WalletTransactionRecordedData): WalletTransactionEvent[] => [{ type: 'WalletTransactionRecorded', data }];
    const confirm = (confirmations: number | null | undefined, fields: Partial<Extract<WalletSendCommand, { type: 'ConfirmWalletTransaction' }>> = {}): WalletSendCommand => ({
      type: 'ConfirmWalletTransaction',
      walletTransactionId: 'wtx_01',
      feeUnits: '21000',
      block: 7,
      networkFeeUsd: 6,
      ...(confirmations !== undefined ? { confirmations } : {}),
      ...fields,
    });
    const confirmed = (fields: Partial<WalletTransactionConfirmedData> = {}): WalletTransactionEvent => ({ type: 'WalletTransactionConfirmed', data: { wallet_transaction_id: 'wtx_01', fee_units: '21000', block: 7, network_fee_usd: 6, ...fields } });
    const fail = (reason: string, confirmations?: number): WalletSendCommand => ({ type: 'FailWalletTransaction', walletTransactionId: 'wtx_01', reason, ...(confirmations !== undefined ? { confirmations } : {}) });
    const failed = (reason: string): WalletTransactionEvent => ({ type: 'WalletTransactionFailed', data: { wallet_transaction_id: 'wtx_01', reason } });

    it('given a live Ethereum send, when its receipt is 1, 2 or 3 blocks deep (or its depth unknown), then nothing: it stays pending; at 4, then confirmed with the fee of that receipt', () => {
      for (const depth of [null, undefined, 0, 1, 2, 3]) given(recorded(send('wtx_01'))).when(confirm(depth)).then([]);
      given(recorded(send('wtx_01'))).when(confirm(4)).then([confirmed()]);
      given(recorded(send('wtx_01'))).when(confirm(9, { block: 8, feeUnits: '21500', networkFeeUsd: 7 })).then([confirmed({ block: 8, fee_units: '21500', network_fee_usd: 7 })]);
    });

    it('given a live Solana send, when it is 31 slots deep, then nothing; at 32, then confirmed', () => {
      const sol = send('wtx_01', { network: 'solana', asset: 'SOL', from_address: 'HAgk14JpMQLgt6rVgv7cBQFJWFto5Dqxi472uT3DKpqk' });
      given(recorded(sol)).when(confirm(31)).then([]);
      given(recorded(sol)).when(confirm(32)).then([confirmed()]);
    });

    it('given a live external record, when the chain proves it in a block not final yet, then nothing; once final, then confirmed and valued', () => {
      const external = send('wtx_01', { kind: 'external', from_address: null, max_fee_units: null, raw: null });
      given(recorded(external)).when(confirm(3, { feeUnits: null, networkFeeUsd: null, valueUsd: 1000 })).then([]);
      given(recorded(external))
        .when(confirm(4, { feeUnits: null, networkFeeUsd: null, valueUsd: 1000 }))
        .then([{ type: 'WalletTransactionConfirmed', data: { wallet_transaction_id: 'wtx_01', fee_units: null, block: 7, value_usd: 1000 } }]);
    });

    it('given a simulated business’s send (no chain), when its timer confirms it without confirmations, then confirmed', () => {
      given(recorded(send('wtx_01', { mode: 'test' })))
        .when({ type: 'ConfirmWalletTransaction', walletTransactionId: 'wtx_01', feeUnits: null, block: null })
        .then([{ type: 'WalletTransactionConfirmed', data: { wallet_transaction_id: 'wtx_01', fee_units: null, block: null } }]);
    });

    it('given a live send, when it reverted in a block not final yet, then nothing (its hold stays); once final, then failed; a failure no block decides (its nonce spent, a mismatching record) fails at once', () => {
      given(recorded(send('wtx_01'))).when(fail('The transaction was mined but reverted.', 3)).then([]);
      given(recorded(send('wtx_01'))).when(fail('The transaction was mined but reverted.', 4)).then([failed('The transaction was mined but reverted.')]);
      given(recorded(send('wtx_01'))).when(fail('The network dropped this transaction.')).then([failed('The network dropped this transaction.')]);
      // the hold stays while the revert is not final: 15 USDC of the 25 received are still taken by the 10 USDC send
      given(recorded(send('wtx_01'))).when(reserve(send('wtx_02', { units: '15000001', max_fee_units: '1000' }))).refused('insufficient_funds', 'amount');
    });

    it('given a live send whose first receipt was not final and whose block a reorganisation then removed, when its node shows it mined again and final, then confirmed once — from the new receipt', () => {
      // the poll's earlier reads (1, 2, 3 deep) wrote nothing, so nothing is undone: the stream holds the record alone
      const events = recorded(send('wtx_01'));
      given(events).when(confirm(2, { block: 7 })).then([]);
      given(events).when(confirm(4, { block: 9, feeUnits: '21007', networkFeeUsd: 5 })).then([confirmed({ block: 9, fee_units: '21007', network_fee_usd: 5 })]);
      // confirmed is final: no second confirmation, no failure after it (no confirmed → pending or failed)
      const done: WalletTransactionEvent[] = [...events, confirmed({ block: 9 })];
      given(done).when(confirm(12, { block: 9 })).then([]);
      given(done).when(fail('The transaction was mined but reverted.', 4)).then([]);
      given(done).when(fail('The network dropped this transaction.')).then([]);
    });

    it('given a live send that reverted on the chain, when it fails with the fee it was charged, then failed with that fee; the amount is given back, the fee stays spent on its payer; a confirmed send spends the fee charged, not its greatest (0040 addenda, 2026-11-28, later)', () => {
      given(recorded(send('wtx_01')))
        .when({ type: 'FailWalletTransaction', walletTransactionId: 'wtx_01', reason: 'The transaction was mined but reverted.', confirmations: 4, feeUnits: '700', networkFeeUsd: 2 })
        .then([{ type: 'WalletTransactionFailed', data: { wallet_transaction_id: 'wtx_01', reason: 'The transaction was mined but reverted.', fee_units: '700', network_fee_usd: 2 } }]);
      const reverted: WalletTransactionEvent[] = [
        ...recorded(send('wtx_01')),
        { type: 'WalletTransactionFailed', data: { wallet_transaction_id: 'wtx_01', reason: 'The transaction was mined but reverted.', fee_units: '700' } },
      ];
      // 25 USDC back for a new send; of the 2000 wei of ETH, 700 went to the reverted send's fee: a greatest fee of 1300 fits, 1301 does not
      given(reverted).when(reserve(send('wtx_02', { units: '25000000', max_fee_units: '1300' }))).then([{ type: 'WalletSendReserved', data: send('wtx_02', { units: '25000000', max_fee_units: '1300' }) }]);
      given(reverted).when(reserve(send('wtx_02', { units: '1', max_fee_units: '1301' }))).refused('insufficient_fee_funds', 'signed_transaction');
      // confirmed with the fee its receipt charged: that fee is spent, no longer the greatest one (0040 addendum, 2026-11-28, later still)
      const paid: WalletTransactionEvent[] = [...recorded(send('wtx_01', { units: '1' })), confirmed({ fee_units: '400' })];
      given(paid).when(reserve(send('wtx_02', { units: '1', max_fee_units: '1600' }))).then([{ type: 'WalletSendReserved', data: send('wtx_02', { units: '1', max_fee_units: '1600' }) }]);
      given(paid).when(reserve(send('wtx_02', { units: '1', max_fee_units: '1601' }))).refused('insufficient_fee_funds', 'signed_transaction');
      // confirmed without a known fee (a simulated send): its greatest fee stays held
      given([...recorded(send('wtx_01', { units: '1' })), confirmed({ fee_units: null })]).when(reserve(send('wtx_02', { units: '1', max_fee_units: '1001' }))).refused('insufficient_fee_funds', 'signed_transaction');
      // a failure without a fee (dropped, nothing mined) gives the whole hold back, as before
      given([...recorded(send('wtx_01')), failed('The network dropped this transaction.')]).when(reserve(send('wtx_02', { units: '1', max_fee_units: '2000' }))).then([{ type: 'WalletSendReserved', data: send('wtx_02', { units: '1', max_fee_units: '2000' }) }]);
    });

    it('given a live send dropped (failed, its hold given back once), when a late receipt of it is final, then nothing: failed stays failed', () => {
      const dropped: WalletTransactionEvent[] = [...recorded(send('wtx_01', { units: '20000000' })), failed('The network dropped this transaction.')];
      given(dropped).when(confirm(4)).then([]);
      given(dropped).when(fail('The transaction was mined but reverted.', 4)).then([]);
      // the hold was given back once: all 25 USDC are available again, no more
      given(dropped).when(reserve(send('wtx_02', { units: '25000000' }))).then([{ type: 'WalletSendReserved', data: send('wtx_02', { units: '25000000' }) }]);
      given(dropped).when(reserve(send('wtx_02', { units: '25000001' }))).refused('insufficient_funds', 'amount');
    });
  });
});
