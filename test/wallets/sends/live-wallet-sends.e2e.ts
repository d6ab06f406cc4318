import { randomUUID } from 'node:crypto';
import { HDKey } from '@scure/bip32';
import { mnemonicToSeedSync } from '@scure/bip39';
import { encodeFunctionData, erc20Abi, keccak256, parseSignature } from 'viem';
import { generateMnemonic, english } from 'viem/accounts';
import { TRANSFER_WITH_AUTHORIZATION_ABI, TRANSFER_WITH_AUTHORIZATION_TYPES, defaultRegistry } from '@lib/chains';
import { newId } from '@lib/http';
import { WalletSendOptionsModule, WalletSends, WalletSendsWorker, fundingTransaction } from '@lib/wallets';
import { ANVIL_MNEMONIC, AnvilNode, Hex, startAnvil } from '../../support/anvil';
import { TestUsdc, deployTestUsdc } from '../../support/test-usdc';
import { closeInTurn } from '../../support/close';
import { eventually } from '../../support/eventually';
import type { PollLoop } from '@lib/timers';
import { TickerServer, startTickerServer } from '../../rates/ticker-server';
import { AccountsTestApp, startAccountsApp } from '../../accounts/support';
import { RECIPIENT, Shop, eth, ethTransfer, liveShop, liveShopWithNewWallet, openCheckout, paymentDetected, send, signerOf } from './support';

/**
 * Sends of a LIVE business relayed through a real node (decision 0040): anvil stands for Ethereum
 * (chain id 1) with a test USDC (EVM_TOKENS_ETHEREUM), watched by the service
 * (EVM_RPC_URL_ETHEREUM). The business imports a phrase, a customer pays an ETH checkout and a
 * USDC checkout with real transfers (the funds the service tracks, on two addresses), then the
 * dashboard's signed sends are relayed with viem and confirmed by the receipt poll: ETH (valued
 * from the live rate), USDC with a funding transaction from the ETH address relayed first, USDC
 * by an EIP-3009 authorization the ETH address submits and pays for. A nonce the node refuses, or
 * a sender without gas on the node, is 409 transaction_rejected with nothing recorded; the node
 * down is 503 network_unavailable, and the retry with the same key lands exactly once. External
 * records are matched against the chain: sender, recipient, asset and amount. A send is confirmed
 * (or failed when it reverted) only once its block is 4 deep, the confirmations incoming transfers
 * need on Ethereum: anvil mines a block per transaction, so the tests mine the rest; a send whose
 * block is reorganised away before that stays pending.
 */
describe('wallet sends of a live business relayed through anvil', () => {
  let ethereum: AnvilNode;
  let ticker: TickerServer;
  let app: AccountsTestApp;
  let shop: Shop;
  let businessId: string;
  let walletId: string;
  let signer: ReturnType<typeof signerOf>;
  let phrase: string;
  let usdc: TestUsdc;
  let nonce = 0;
  const CUSTOMER = 1;
  /** How long a send refused after its funding waits for the funding's receipt (30 s in production): past a few one-second blocks. */
  const FUNDING_WAIT_MS = 4_000;

  beforeAll(async () => {
    ethereum = await startAnvil({ chainId: 1 });
    usdc = await deployTestUsdc(ethereum);
    await usdc.mint(ethereum.address(CUSTOMER), 1_000_000_000n);
    ticker = await startTickerServer();
    ticker.set('ETH-USD', { kind: 'price', price: '3000.00' });
    app = await startAccountsApp('embedded', {
      RATES_URL: ticker.url,
      EVM_RPC_URL_ETHEREUM: ethereum.url,
      EVM_TOKENS_ETHEREUM: `USDC=${usdc.address}`,
      CHAIN_POLL_MS: '100',
      QUOTE_TTL_SECONDS: '60',
    }, undefined, [WalletSendOptionsModule.using({ fundingWaitMs: FUNDING_WAIT_MS })]);
    ({ shop, businessId, phrase, walletId } = await liveShopWithNewWallet(app, 'Live Coffee'));
    // a customer pays 30 USD in ETH (0.01 ETH) with a real transfer: the address's funds
    const checkout = await openCheckout(shop, 'Beans', 'ETH', 'ethereum');
    expect([checkout.status, checkout.body.data?.crypto?.amount]).toEqual([201, '0.01']);
    const address = checkout.body.data.crypto.address as Hex;
    await ethereum.send(CUSTOMER, { to: address, value: eth('0.01') });
    await paymentDetected(shop, checkout.body.data.id, 'payment detected');
    signer = signerOf(phrase, address);
  }, 60_000);
  afterAll(() => closeInTurn(app, ethereum, ticker));

  const balance = (address: Hex) => ethereum.rpc<Hex>('eth_getBalance', [address, 'latest']).then(BigInt);
  const usdcBalance = (address: Hex) => ethereum.rpc<Hex>('eth_call', [{ to: usdc.address, data: encodeFunctionData({ abi: erc20Abi, functionName: 'balanceOf', args: [address] }) }, 'latest']).then(BigInt);
  const settled = (id: string) => eventually(() => shop.get(`/wallet/transactions/${id}`).then((r) => r.body.data), (t) => t.status !== 'pending', { what: `send ${id} settled` });
  /** The confirmations incoming transfers need on Ethereum (4): what a send's block needs before the service takes its receipt. */
  const REQUIRED = defaultRegistry.confirmationsRequired('ethereum');
  /** Waits for `hash` to be mined, then mines blocks on it until it is final (REQUIRED deep); its receipt. */
  const final = async (hash: Hex) => {
    const receipt = await ethereum.receipt(hash);
    const head = await ethereum.head();
    const missing = Number(receipt.blockNumber) + REQUIRED - 1 - head;
    if (missing > 0) await ethereum.mine(missing);
    return receipt;
  };
  type Listed = { id: string; status: string; tx_hash: string; from_address: string | null };
  /** The wallet transactions with this hash, once the list shows them in `status`. */
  const booked = (hash: string, status: string) =>
    eventually(
      () => shop.get('/wallet/transactions?limit=100').then((r) => (r.body.data as Listed[]).filter((t) => t.tx_hash === hash)),
      (found) => found.length > 0 && found.every((t) => t.status === status),
      { what: `${hash} listed ${status}` },
    );
  /** A funded send answered 201, confirmed once final, and its funding (0.001 ETH from the ETH address) on the books, confirmed, once. */
  const landsWithItsFunding = async (created: { status: number; body: { data: { id: string; tx_hash: Hex }; error?: { message: string } } }, funding: Hex, holder: string) => {
    expect([created.status, created.body.error?.message]).toEqual([201, undefined]);
    await final(created.body.data.tx_hash); // the funding's block is below the send's: final with it
    expect((await settled(created.body.data.id)).status).toBe('confirmed');
    expect(await booked(keccak256(funding).toLowerCase(), 'confirmed')).toEqual([expect.objectContaining({ asset: 'ETH', amount: '0.001', from_address: signer.address, to_address: holder })]);
  };
  /** What the ETH address may still spend of its coin (the send context's `available.fee_coin`). */
  const funderAvailable = () => shop.get(`/wallet/send-context?network=ethereum&asset=ETH&from=${signer.address}`).then((r) => eth(r.body.data.available.fee_coin as string));

  /** A USDC checkout of 30 USD paid by the customer with a real token transfer: a second address of the wallet, holding USDC and no ETH. */
  /** What a signed send of the wallet's to RECIPIENT holds (ReserveWalletSend's data): `units` of `asset` on Ethereum from `from`, at most `gas` gas at 2 gwei. */
  const heldSend = (asset: 'ETH' | 'USDC', units: bigint, from: Hex, raw: Hex, gas: bigint) => ({
    wallet_transaction_id: newId('wtx'),
    wallet_id: walletId,
    business_id: businessId,
    mode: 'live' as const,
    kind: 'signed' as const,
    asset,
    network: 'ethereum' as const,
    units: units.toString(),
    from_address: from,
    to_address: RECIPIENT,
    tx_hash: keccak256(raw).toLowerCase(),
    speed: 'standard' as const,
    note: null,
    max_fee_units: (gas * 2_000_000_000n).toString(),
    raw,
  });

  async function usdcAddress(): Promise<ReturnType<typeof signerOf>> {
    const checkout = await openCheckout(shop, 'Mugs', 'USDC', 'ethereum');
    expect([checkout.status, checkout.body.data?.crypto?.amount]).toEqual([201, '30']);
    const address = checkout.body.data.crypto.address as Hex;
    await ethereum.receipt(await ethereum.send(CUSTOMER, usdc.transfer(address, 30_000_000n)));
    await paymentDetected(shop, checkout.body.data.id, 'USDC payment detected');
    return signerOf(phrase, address);
  }

  /** A signed EIP-1559 call of the test USDC by `from`. */
  const usdcCall = (from: ReturnType<typeof signerOf>, data: Hex, fields: { nonce: number; gas?: bigint }) =>
    from.signTransaction({ type: 'eip1559', chainId: 1, to: usdc.address, value: 0n, data, nonce: fields.nonce, gas: fields.gas ?? 150_000n, maxFeePerGas: 2_000_000_000n, maxPriorityFeePerGas: 1_000_000_000n });

  it('relays a signed ETH send through the node and confirms it from its receipt', async () => {
    const before = await balance(RECIPIENT);
    const signed = await ethTransfer(signer, { value: eth('0.002'), nonce: nonce++ });
    const created = await send(shop, { asset: 'ETH', network: 'ethereum', amount: '0.002', to_address: RECIPIENT, speed: 'fast', signed_transaction: signed });
    expect([created.status, created.body.data?.status, created.body.data?.origin]).toEqual([201, 'pending', 'signed']);
    // 0.002 ETH at the live rate of 3000.00 USD: 6.00 USD; until mined, the fee the transaction sets (21 000 gas × 2 gwei: 12.6 cents, half up)
    expect([created.body.data.value_usd, created.body.data.network_fee_usd]).toEqual([600, 13]);
    const receipt = await final(created.body.data.tx_hash);
    expect(receipt.status).toBe('success');
    expect((await balance(RECIPIENT)) - before).toBe(eth('0.002'));
    const confirmed = await eventually(() => shop.get(`/wallet/transactions/${created.body.data.id}`).then((r) => r.body.data), (t) => t.status === 'confirmed', { what: 'send confirmed by its receipt' });
    expect(confirmed.confirmed_at).toEqual(expect.any(String));
    // the fee the receipt shows (gas used at the effective price), in cents at 3000.00 USD, rounded half up
    const mined = await ethereum.rpc<{ gasUsed: Hex; effectiveGasPrice: Hex }>('eth_getTransactionReceipt', [created.body.data.tx_hash]);
    const feeCents = (BigInt(mined.gasUsed) * BigInt(mined.effectiveGasPrice) * 300_000n + 500_000_000_000_000_000n) / 1_000_000_000_000_000_000n;
    expect([confirmed.value_usd, confirmed.network_fee_usd]).toEqual([600, Number(feeCents)]);
    // the send context asks the node: the next nonce, fees from the latest base fee
    const context = await shop.get(`/wallet/send-context?network=ethereum&asset=ETH&from=${signer.address}`);
    expect(context.status).toBe(200);
    expect(context.body.data).toMatchObject({ chain_id: 1, nonce: 1, fees: { standard: { max_fee_per_gas: expect.stringMatching(/^\d+$/) } } });
  });

  it('answers 409 transaction_rejected for a nonce the node refuses, and records nothing', async () => {
    const stale = await ethTransfer(signer, { value: eth('0.001'), nonce: 0, maxFeePerGas: 3_000_000_000n });
    const refused = await send(shop, { asset: 'ETH', network: 'ethereum', amount: '0.001', to_address: RECIPIENT, signed_transaction: stale });
    expect([refused.status, refused.body.error.code]).toEqual([409, 'transaction_rejected']);
    const list = await shop.get('/wallet/transactions');
    expect(list.body.data.map((t: { tx_hash: string }) => t.tx_hash)).not.toContain(refused.body.error.tx_hash);
    expect(list.body.data).toHaveLength(1);
  });

  it('answers 503 network_unavailable while the node is down; the retry with the same key relays the same bytes and lands once', async () => {
    const before = await balance(RECIPIENT);
    const signed = await ethTransfer(signer, { value: eth('0.001'), nonce: nonce++ });
    const key = randomUUID();
    const body = { asset: 'ETH', network: 'ethereum', amount: '0.001', to_address: RECIPIENT, signed_transaction: signed };
    await ethereum.stop();
    try {
      const down = await send(shop, body, key);
      expect([down.status, down.body.error.code]).toEqual([503, 'network_unavailable']);
    } finally {
      await ethereum.start();
    }
    const retried = await send(shop, body, key);
    expect([retried.status, retried.body.data?.status]).toEqual([201, 'pending']);
    const again = await send(shop, body, key);
    expect([again.status, again.headers.get('idempotent-replayed'), again.body.data.id]).toEqual([201, 'true', retried.body.data.id]);
    await final(retried.body.data.tx_hash);
    await eventually(() => shop.get(`/wallet/transactions/${retried.body.data.id}`).then((r) => r.body.data), (t) => t.status === 'confirmed', { what: 'retried send confirmed' });
    expect((await balance(RECIPIENT)) - before).toBe(eth('0.001'));
    const list = await shop.get('/wallet/transactions');
    expect(list.body.data.filter((t: { tx_hash: string }) => t.tx_hash === retried.body.data.tx_hash)).toHaveLength(1);
  });

  it('a USDC send (ERC-20 transfer) from an address with no gas: 409 insufficient_fee_funds alone; with a funding transaction from the ETH address relayed first, both land and the send confirms', async () => {
    const holder = await usdcAddress();
    const before = await usdcBalance(RECIPIENT);
    const transfer = await usdcCall(holder, encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [RECIPIENT, 12_500_000n] }), { nonce: 0 });
    const body = { asset: 'USDC', network: 'ethereum', amount: '12.5', to_address: RECIPIENT, signed_transaction: transfer };
    const noGas = await send(shop, body);
    expect([noGas.status, noGas.body.error.code]).toEqual([409, 'insufficient_fee_funds']);
    const available = () => shop.get(`/wallet/send-context?network=ethereum&asset=ETH&from=${signer.address}`).then((r) => eth(r.body.data.available.fee_coin as string));
    const funderBefore = await available();
    const funding = await ethTransfer(signer, { to: holder.address, value: eth('0.001'), nonce: nonce++ });
    // blocks every second instead of one per transaction: the node refuses the send until the funding is mined,
    // as a real pool does (the service relays it again once the funding's receipt is there; it answered 409 before)
    await ethereum.rpc('evm_setAutomine', [false]);
    await ethereum.rpc('evm_setIntervalMining', [1]);
    let created: Awaited<ReturnType<typeof send>>;
    try {
      created = await send(shop, { ...body, funding_transaction: funding });
    } finally {
      await ethereum.rpc('evm_setIntervalMining', [0]);
      await ethereum.rpc('evm_setAutomine', [true]);
    }
    expect([created.status, created.body.error?.message]).toEqual([201, undefined]);
    // the funder's coin is taken: what it sends and its greatest fee (21000 gas at 2 gwei)
    expect(funderBefore - (await available())).toBe(eth('0.001') + 21_000n * 2_000_000_000n);
    expect(created.body.data).toMatchObject({ status: 'pending', origin: 'signed', asset: 'USDC', amount: '12.5', from_address: holder.address, value_usd: 1250 });
    await final(created.body.data.tx_hash);
    const sent = await settled(created.body.data.id);
    expect(sent.status).toBe('confirmed');
    expect((await usdcBalance(RECIPIENT)) - before).toBe(12_500_000n);
    // the holder paid its gas with the funded ETH
    expect(await balance(holder.address)).toBeLessThan(eth('0.001'));
    expect(await balance(holder.address)).toBeGreaterThan(0n);
    // the funding transaction is a wallet transaction of its own, confirmed from its receipt
    expect(await booked(keccak256(funding).toLowerCase(), 'confirmed')).toEqual([
      expect.objectContaining({ origin: 'signed', direction: 'out', asset: 'ETH', amount: '0.001', from_address: signer.address, to_address: holder.address }),
    ]);
  });

  it('a funding transaction still unmined when its send is finally refused stays on the books: 409 with nothing of the send recorded, the funding a pending wallet transaction (its coin and fee held) that confirms once mined; the same request again leans on it and lands', async () => {
    const holder = await usdcAddress();
    const before = await usdcBalance(RECIPIENT);
    const funderBefore = await funderAvailable();
    const transfer = await usdcCall(holder, encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [RECIPIENT, 5_000_000n] }), { nonce: 0 });
    const funding = await ethTransfer(signer, { to: holder.address, value: eth('0.001'), nonce: nonce++ });
    const fundingHash = keccak256(funding).toLowerCase();
    const body = { asset: 'USDC', network: 'ethereum', amount: '5', to_address: RECIPIENT, signed_transaction: transfer, funding_transaction: funding };
    const held = eth('0.001') + 21_000n * 2_000_000_000n; // what the funding sends and its greatest fee
    // no blocks: the funding waits in the pool past the send's wait for it, and the node refuses the send (its sender holds no gas)
    await ethereum.rpc('evm_setAutomine', [false]);
    let fundingId: string;
    try {
      const refused = await send(shop, body);
      expect([refused.status, refused.body.error?.code]).toEqual([409, 'transaction_rejected']);
      // nothing of the send is recorded
      const listed = (await shop.get('/wallet/transactions?limit=100')).body.data as Listed[];
      expect(listed.filter((t) => t.from_address === holder.address)).toEqual([]);
      // the funding is, pending: its amount and its fee (21 000 gas × 2 gwei) at 3000.00 USD
      const [pending] = await booked(fundingHash, 'pending');
      expect(pending).toMatchObject({ origin: 'signed', direction: 'out', asset: 'ETH', network: 'ethereum', amount: '0.001', from_address: signer.address, to_address: holder.address, value_usd: 300, network_fee_usd: 13 });
      fundingId = pending!.id;
      // the refusal names it
      expect(refused.body.error.message).toContain(fundingId);
      // the funder's coin is held for it
      expect(funderBefore - (await funderAvailable())).toBe(held);
      await ethereum.rpc('evm_mine', []);
    } finally {
      await ethereum.rpc('evm_setAutomine', [true]);
    }
    // mined after the wait (and buried as deep as a send must be to be final): confirmed by the receipt poll, the fee the chain charged
    await final(fundingHash as Hex);
    const confirmed = await settled(fundingId);
    expect(confirmed.status).toBe('confirmed');
    expect((await ethereum.receipt(fundingHash as Hex)).status).toBe('success');
    expect(await balance(holder.address)).toBe(eth('0.001'));
    // confirmed: what it sent and the fee its receipt charged stay spent (no longer its greatest fee: 0040 addendum, 2026-11-28, later still)
    const fundingReceipt = await ethereum.rpc<{ gasUsed: Hex; effectiveGasPrice: Hex }>('eth_getTransactionReceipt', [fundingHash]);
    const spent = eth('0.001') + BigInt(fundingReceipt.gasUsed) * BigInt(fundingReceipt.effectiveGasPrice);
    expect(spent).toBeLessThan(held);
    expect(funderBefore - (await funderAvailable())).toBe(spent);
    // sent again, the same request leans on the funding's record: not relayed again (mined, the node would refuse it), not held twice
    const again = await send(shop, body);
    expect([again.status, again.body.error?.message]).toEqual([201, undefined]);
    await final(again.body.data.tx_hash);
    expect((await settled(again.body.data.id)).status).toBe('confirmed');
    expect((await usdcBalance(RECIPIENT)) - before).toBe(5_000_000n);
    expect(await booked(fundingHash, 'confirmed')).toHaveLength(1);
    expect(funderBefore - (await funderAvailable())).toBe(spent);
  });

  it('a funding transaction the dashboard broadcast itself first (mined: the node refuses it again) counts as relayed: on the books, and the send lands', async () => {
    const holder = await usdcAddress();
    const funding = await ethTransfer(signer, { to: holder.address, value: eth('0.001'), nonce: nonce++ });
    await ethereum.receipt(await ethereum.sendRaw(funding));
    const transfer = await usdcCall(holder, encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [RECIPIENT, 1_000_000n] }), { nonce: 0 });
    const created = await send(shop, { asset: 'USDC', network: 'ethereum', amount: '1', to_address: RECIPIENT, signed_transaction: transfer, funding_transaction: funding });
    await landsWithItsFunding(created, funding, holder.address);
  });

  it('a funding transaction only held by another request (its send released, the funding not yet known relayed) is relayed by the next request leaning on it: recorded once, and the send lands', async () => {
    const sends = app.api.app.get(WalletSends);
    const holder = await usdcAddress();
    const funding = await ethTransfer(signer, { to: holder.address, value: eth('0.001'), nonce: nonce++ });
    const transfer = await usdcCall(holder, encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [RECIPIENT, 2_000_000n] }), { nonce: 0 });
    // what the other request wrote before it relayed anything: its send and the funding held, then its send released
    const other = {
      ...heldSend('USDC', 2_000_000n, holder.address, transfer, 150_000n),
      funding: { from: signer.address, tx_hash: keccak256(funding).toLowerCase(), units: eth('0.001').toString(), max_fee_units: (21_000n * 2_000_000_000n).toString(), raw: funding },
    };
    await sends.decide(walletId, { type: 'ReserveWalletSend', data: other, funds: null, fundingRecord: fundingTransaction(other, newId('wtx'), 'ETH', { value_usd: null, network_fee_usd: null }) }, {});
    await sends.decide(walletId, { type: 'ReleaseWalletSend', walletTransactionId: other.wallet_transaction_id, reason: 'transaction_rejected' }, {});
    const created = await send(shop, { asset: 'USDC', network: 'ethereum', amount: '2', to_address: RECIPIENT, signed_transaction: transfer, funding_transaction: funding });
    await landsWithItsFunding(created, funding, holder.address);
  });

  it('EIP-3009: a USDC send from an address with no gas as a transferWithAuthorization it signed, submitted and paid by the ETH address; a tampered authorization is 400; a gas limit the node refuses is 409 transaction_rejected with nothing recorded', async () => {
    const holder = await usdcAddress();
    const before = await usdcBalance(RECIPIENT);
    const authorize = async (value: bigint, to: Hex = RECIPIENT) => {
      const message = { from: holder.address, to, value, validAfter: 0n, validBefore: BigInt(Math.floor(Date.now() / 1000) + 3600), nonce: `0x${randomUUID().replace(/-/g, '').padEnd(64, '0')}` as Hex };
      const signature = await holder.signTypedData({ domain: { name: 'USD Coin', version: '2', chainId: 1, verifyingContract: usdc.address }, types: TRANSFER_WITH_AUTHORIZATION_TYPES, primaryType: 'TransferWithAuthorization', message });
      const { r, s, v } = parseSignature(signature);
      return encodeFunctionData({ abi: TRANSFER_WITH_AUTHORIZATION_ABI, functionName: 'transferWithAuthorization', args: [message.from, message.to, message.value, message.validAfter, message.validBefore, message.nonce, Number(v), r, s] });
    };
    const body = { asset: 'USDC', network: 'ethereum', amount: '7', to_address: RECIPIENT };
    // an authorization for another amount than the request's
    const tampered = await send(shop, { ...body, signed_transaction: await usdcCall(signer, await authorize(7_000_001n), { nonce: nonce }) });
    expect([tampered.status, tampered.body.error.code, tampered.body.error.field]).toEqual([400, 'invalid_request', 'signed_transaction']);
    // a stranger's submission is not the wallet's
    const strangerAccount = signerOf(ANVIL_MNEMONIC, ethereum.address(2));
    const foreign = await send(shop, { ...body, signed_transaction: await usdcCall(strangerAccount, await authorize(7_000_000n), { nonce: 0 }) });
    expect([foreign.status, foreign.body.error.code]).toEqual([400, 'invalid_request']);
    // the holder submitting its own authorization holds no gas: 409 insufficient_fee_funds
    const broke = await send(shop, { ...body, signed_transaction: await usdcCall(holder, await authorize(7_000_000n), { nonce: 0 }) });
    expect([broke.status, broke.body.error.code]).toEqual([409, 'insufficient_fee_funds']);
    // a gas limit below any transaction's intrinsic gas: the node refuses it, nothing is recorded
    const tooLittleGas = await send(shop, { ...body, signed_transaction: await usdcCall(signer, await authorize(7_000_000n), { nonce: nonce, gas: 10_000n }) });
    expect([tooLittleGas.status, tooLittleGas.body.error.code]).toEqual([409, 'transaction_rejected']);
    const listed = (await shop.get('/wallet/transactions?limit=100')).body.data as { from_address: string; status: string }[];
    expect(listed.filter((t) => t.from_address === holder.address)).toEqual([]);
    // enough gas to be mined, not to run the call: relayed, then failed from its reverted receipt — its hold given back
    // but for the fee the chain charged all the same, which stays spent on the submitter and is the send's network fee
    // (0040 addendum, 2026-11-28, later)
    const submitterEth = () => shop.get(`/wallet/send-context?network=ethereum&asset=ETH&from=${signer.address}`).then((r) => eth(r.body.data.available.fee_coin as string));
    const ethBefore = await submitterEth();
    const outOfGas = await send(shop, { ...body, signed_transaction: await usdcCall(signer, await authorize(7_000_000n), { nonce: nonce++, gas: 30_000n }) });
    expect([outOfGas.status, outOfGas.body.data?.status]).toEqual([201, 'pending']);
    await final(outOfGas.body.data.tx_hash);
    const reverted = await settled(outOfGas.body.data.id);
    expect([reverted.status, reverted.failure_reason]).toEqual(['failed', 'The transaction was mined but reverted.']);
    expect(await usdcBalance(holder.address)).toBe(30_000_000n);
    const charged = await ethereum.rpc<{ gasUsed: Hex; effectiveGasPrice: Hex; status: Hex }>('eth_getTransactionReceipt', [outOfGas.body.data.tx_hash]);
    expect(charged.status).toBe('0x0');
    const chargedWei = BigInt(charged.gasUsed) * BigInt(charged.effectiveGasPrice);
    expect(chargedWei).toBeGreaterThan(0n);
    expect(ethBefore - (await submitterEth())).toBe(chargedWei);
    expect(reverted.network_fee_usd).toBe(Number((chargedWei * 300_000n + 500_000_000_000_000_000n) / 1_000_000_000_000_000_000n));

    const submitted = await usdcCall(signer, await authorize(7_000_000n), { nonce: nonce++ });
    const created = await send(shop, { ...body, signed_transaction: submitted });
    expect(created.status).toBe(201);
    // the fee the submitter's transaction sets, in ETH at 3000.00 USD: 150 000 gas × 2 gwei = 0.0003 ETH = 90 cents
    expect(created.body.data).toMatchObject({ status: 'pending', origin: 'signed', asset: 'USDC', amount: '7', from_address: holder.address, address: holder.address, value_usd: 700, network_fee_usd: 90 });
    await final(created.body.data.tx_hash);
    const sent = await settled(created.body.data.id);
    expect(sent.status).toBe('confirmed');
    expect((await usdcBalance(RECIPIENT)) - before).toBe(7_000_000n);
    expect(await usdcBalance(holder.address)).toBe(23_000_000n);
    expect(await balance(holder.address)).toBe(0n); // the submitter paid the gas
  });

  it('a hold a crash left between the hold and the record: the worker asks the node — it knows the transaction → recorded, then confirmed; it does not → released, and the same transaction can be sent again', async () => {
    const sends = app.api.app.get(WalletSends);
    /** What the route writes before it relays, as a crash would leave it: the hold alone, taken 10 minutes ago. */
    const holdOnly = async (signed: Hex, value: bigint) => {
      const data = heldSend('ETH', value, signer.address, signed, 21_000n);
      await sends.decide(walletId, { type: 'ReserveWalletSend', data, funds: null }, {}, new Date(Date.now() - 10 * 60_000));
      return data.wallet_transaction_id;
    };
    // relayed before the crash: the node has it
    const relayed = await ethTransfer(signer, { value: eth('0.0005'), nonce: nonce++ });
    await final(await ethereum.sendRaw(relayed));
    const relayedId = await holdOnly(relayed, eth('0.0005'));
    const recorded = await eventually(() => shop.get(`/wallet/transactions/${relayedId}`).then((r) => r.body.data), (t) => t?.status === 'confirmed', { what: 'a relayed hold recorded and confirmed' });
    expect(recorded).toMatchObject({ origin: 'signed', amount: '0.0005', tx_hash: keccak256(relayed).toLowerCase() });
    // never relayed: the hash is held (409 duplicate_transaction) until the worker releases it
    const lost = await ethTransfer(signer, { value: eth('0.0004'), nonce: nonce++ });
    const lostId = await holdOnly(lost, eth('0.0004'));
    const body = { asset: 'ETH', network: 'ethereum', amount: '0.0004', to_address: RECIPIENT, signed_transaction: lost };
    const held = await send(shop, body);
    if (held.status === 409) expect(held.body.error.code).toBe('duplicate_transaction');
    else expect(held.status).toBe(201); // the worker was quicker than this request
    const resent = held.status === 201 ? held : await eventually(() => send(shop, body), (r) => r.status !== 409, { what: 'the lost hold released' });
    expect([resent.status, resent.body.data?.status]).toEqual([201, 'pending']);
    expect(resent.body.data.id).not.toBe(lostId);
    expect((await shop.get(`/wallet/transactions/${lostId}`)).status).toBe(404);
    await final(resent.body.data.tx_hash);
    await settled(resent.body.data.id);
    expect((await ethereum.receipt(resent.body.data.tx_hash)).status).toBe('success');
  });

  it('a send the network dropped, whose nonce another transaction then used, fails (its hold given back); one still in the pool stays pending', async () => {
    const available = () => shop.get(`/wallet/send-context?network=ethereum&asset=ETH&from=${signer.address}`).then((r) => eth(r.body.data.available.fee_coin as string));
    const before = await available();
    await ethereum.rpc('evm_setAutomine', [false]);
    let created: Awaited<ReturnType<typeof send>>;
    const used = nonce++;
    try {
      const signed = await ethTransfer(signer, { value: eth('0.0003'), nonce: used });
      created = await send(shop, { asset: 'ETH', network: 'ethereum', amount: '0.0003', to_address: RECIPIENT, signed_transaction: signed });
      expect([created.status, created.body.data?.status]).toEqual([201, 'pending']);
      // in the pool: the poll leaves it pending
      await new Promise((r) => setTimeout(r, 500));
      expect((await shop.get(`/wallet/transactions/${created.body.data.id}`)).body.data.status).toBe('pending');
      // the network drops it; the sender's next transaction, made outside the service, takes its nonce
      await ethereum.rpc('anvil_dropTransaction', [created.body.data.tx_hash]);
      await ethereum.sendRaw(await ethTransfer(signer, { value: eth('0.0001'), nonce: used, maxFeePerGas: 3_000_000_000n }));
      await ethereum.rpc('evm_mine', []);
    } finally {
      await ethereum.rpc('evm_setAutomine', [true]);
    }
    const failed = await settled(created.body.data.id);
    expect(failed).toMatchObject({ status: 'failed', failure_reason: expect.stringContaining('used its nonce') });
    expect(await ethereum.rpc('eth_getTransactionReceipt', [created.body.data.tx_hash])).toBeNull();
    // its hold is given back (the replacement, made outside the service, is not the service's to count)
    expect(await available()).toBe(before);
  });

  it('a send the network dropped while its nonce is unused is relayed again by the receipt poll (its signed bytes, the same hash) and lands: confirmed once final, its hold kept as spent (0040 addendum, 2026-11-28, later)', async () => {
    const worker = app.api.app.get(WalletSendsWorker);
    await ethereum.rpc('evm_setAutomine', [false]);
    let id: string;
    let hash: Hex;
    try {
      const signed = await ethTransfer(signer, { value: eth('0.0001'), nonce: nonce++ });
      const created = await send(shop, { asset: 'ETH', network: 'ethereum', amount: '0.0001', to_address: RECIPIENT, signed_transaction: signed });
      expect([created.status, created.body.data?.status]).toEqual([201, 'pending']);
      ({ id, tx_hash: hash } = created.body.data as { id: string; tx_hash: Hex });
      await ethereum.rpc('anvil_dropTransaction', [hash]);
      // the receipt poll (its rounds run every 100 ms here, and once more by hand): the node does not know it, its nonce is
      // unused → its bytes are relayed again
      await worker.pollLive();
      await eventually(() => ethereum.rpc<{ hash: Hex } | null>('eth_getTransactionByHash', [hash]), (tx) => tx?.hash === hash, { what: 'the dropped send relayed again' });
      expect((await shop.get(`/wallet/transactions/${id}`)).body.data.status).toBe('pending');
      await ethereum.rpc('evm_mine', []);
    } finally {
      await ethereum.rpc('evm_setAutomine', [true]);
    }
    await final(hash);
    const confirmed = await settled(id);
    expect(confirmed).toMatchObject({ status: 'confirmed', tx_hash: hash });
  });

  it('a send is confirmed only once its block is as deep as incoming transfers need (4): pending after its first block and at 3; reorganised away at 3 it stays pending (its hold kept) however long the chain grows; mined again, it is confirmed once final, its fee from the new receipt', async () => {
    const worker = app.api.app.get(WalletSendsWorker);
    const view = (id: string) => shop.get(`/wallet/transactions/${id}`).then((r) => r.body.data);
    const available = () => shop.get(`/wallet/send-context?network=ethereum&asset=ETH&from=${signer.address}`).then((r) => eth(r.body.data.available.fee_coin as string));
    const before = await available();
    const signed = await ethTransfer(signer, { value: eth('0.0002'), nonce: nonce++ });
    const created = await send(shop, { asset: 'ETH', network: 'ethereum', amount: '0.0002', to_address: RECIPIENT, signed_transaction: signed });
    expect([created.status, created.body.data?.status]).toEqual([201, 'pending']);
    const { id, tx_hash: hash } = created.body.data as { id: string; tx_hash: Hex };
    // its hold: the amount and the greatest fee (21 000 gas at 2 gwei)
    const held = eth('0.0002') + 21_000n * 2_000_000_000n;
    expect(before - (await available())).toBe(held);

    // the rounds below are the test's own: the background receipt poll is stopped, its round in flight finished first, so
    // none reads the receipt before the reorganisation and the tip after it (as the Solana fork test does)
    const loop = (worker as unknown as { poll: PollLoop }).poll;
    await loop.stop();
    let again: Awaited<ReturnType<typeof ethereum.receipt>>;
    try {
      // mined (anvil mines a block per transaction): one confirmation. A round of the receipt poll reads the receipt and leaves it pending
      const first = await ethereum.receipt(hash);
      expect(first.status).toBe('success');
      await worker.pollLive();
      expect((await view(id)).status).toBe('pending');
      await ethereum.mine(REQUIRED - 2); // 3 deep
      await worker.pollLive();
      expect((await view(id)).status).toBe('pending');

      // a reorganisation replaces its block and the two above with three blocks without it (anvil_reorg: the transaction is not put back in the pool)
      await ethereum.rpc('anvil_reorg', [REQUIRED - 1, []]);
      expect(await ethereum.rpc('eth_getTransactionReceipt', [hash])).toBeNull();
      // the chain grows far past the depth its old block would have had: no receipt, its nonce unused (it can still land): pending, held;
      // its node forgot it (a geth-style node puts a reorganised block's transactions back in its pool, anvil does not), so the
      // receipt poll relays its signed bytes again (0040 addendum, 2026-11-28, later) and it is mined again, in another block
      await ethereum.mine(REQUIRED + 2);
      await worker.pollLive();
      expect((await view(id)).status).toBe('pending');
      expect(before - (await available())).toBe(held);
      again = await ethereum.receipt(hash);
      expect(again.blockNumber).toBeGreaterThan(first.blockNumber);
      await worker.pollLive();
      expect((await view(id)).status).toBe('pending');
    } finally {
      loop.start(); // the background poll confirms it from here, as it would in service
    }
    await ethereum.mine(REQUIRED - 1);
    const confirmed = await eventually(() => view(id), (t) => t.status !== 'pending', { what: 'send confirmed once its new block is final' });
    expect(confirmed.status).toBe('confirmed');
    // the fee of the receipt it was confirmed from (the new block's base fee), in cents at 3000.00 USD, rounded half up
    const mined = await ethereum.rpc<{ gasUsed: Hex; effectiveGasPrice: Hex; blockHash: Hex }>('eth_getTransactionReceipt', [hash]);
    expect(mined.blockHash).toBe(again.blockHash);
    const feeCents = (BigInt(mined.gasUsed) * BigInt(mined.effectiveGasPrice) * 300_000n + 500_000_000_000_000_000n) / 1_000_000_000_000_000_000n;
    expect([confirmed.value_usd, confirmed.network_fee_usd]).toEqual([60, Number(feeCents)]);
    // confirmed once: the coin and the fee its receipt charged stay spent (its greatest fee no longer held: 0040 addendum,
    // 2026-11-28, later still), never given back; one API event
    await worker.pollLive();
    expect((await view(id)).status).toBe('confirmed');
    expect(before - (await available())).toBe(eth('0.0002') + BigInt(mined.gasUsed) * BigInt(mined.effectiveGasPrice));
    const events = await eventually(() => shop.get(`/events?subject_id=${id}`).then((r) => r.body.data as { type: string }[]), (e) => e.length > 0, { what: 'wallet_transaction.confirmed event' });
    expect(events.map((e) => e.type)).toEqual(['wallet_transaction.confirmed']);
  });

  it('external records: an unverified record by hash (no hold, fee zero) matched against the chain — confirmed when it matches (valued then), failed on another amount, recipient, asset or sender; a signed_transaction is refused', async () => {
    // a second live business connecting the same kind of phrase as an external wallet (its xpub only)
    const { shop: outside } = await liveShop(app, 'Outside Wallet');
    const phrase = generateMnemonic(english);
    const xpub = HDKey.fromMasterSeed(mnemonicToSeedSync(phrase)).derive("m/44'/60'/0'").publicExtendedKey;
    expect((await outside.post('/wallet', { type: 'external', evm_xpub: xpub })).status).toBe(201);
    const checkout = await openCheckout(outside, 'Tea', 'ETH', 'ethereum');
    expect(checkout.status).toBe(201);
    const address = checkout.body.data.crypto.address as Hex;
    await ethereum.send(CUSTOMER, { to: address, value: eth('0.01') });
    const owner = signerOf(phrase, address);
    await usdc.mint(address, 10_000_000n); // USDC the owner holds outside the service's tracking
    // the business sends from its own app, then records the hash
    const sent = await ethereum.sendRaw(await ethTransfer(owner, { value: eth('0.003'), nonce: 0 }));
    await final(sent);
    const signedRefused = await send(outside, { asset: 'ETH', network: 'ethereum', amount: '0.003', to_address: RECIPIENT, signed_transaction: await ethTransfer(owner, { value: eth('0.003'), nonce: 1 }) });
    expect([signedRefused.status, signedRefused.body.error.code, signedRefused.body.error.field]).toEqual([400, 'invalid_request', 'signed_transaction']);
    const recorded = await send(outside, { asset: 'ETH', network: 'ethereum', amount: '0.003', to_address: RECIPIENT, tx_hash: sent.toUpperCase().replace('0X', '0x') });
    expect(recorded.status).toBe(201);
    expect(recorded.body.data).toMatchObject({ status: 'pending', origin: 'external', tx_hash: sent.toLowerCase(), from_address: null, value_usd: 0, network_fee_usd: 0 });
    const confirmed = await eventually(() => outside.get(`/wallet/transactions/${recorded.body.data.id}`).then((r) => r.body.data), (t) => t.status !== 'pending', { what: 'external record matched' });
    expect([confirmed.status, confirmed.network_fee_usd]).toEqual(['confirmed', 0]);
    // another chain transaction recorded with the wrong amount fails the record
    const other = await ethereum.sendRaw(await ethTransfer(owner, { value: eth('0.001'), nonce: 1 }));
    await ethereum.receipt(other);
    const wrong = await send(outside, { asset: 'ETH', network: 'ethereum', amount: '0.002', to_address: RECIPIENT, tx_hash: other });
    expect(wrong.status).toBe(201);
    const failed = await eventually(() => outside.get(`/wallet/transactions/${wrong.body.data.id}`).then((r) => r.body.data), (t) => t.status !== 'pending', { what: 'external record mismatched' });
    expect([failed.status, failed.failure_reason]).toEqual(['failed', 'The transaction pays another amount than the record.']);
    // another recipient, another asset, another sender: each fails its record with the reason
    const record = async (body: Record<string, unknown>) => {
      const created = await send(outside, { network: 'ethereum', ...body });
      expect(created.status).toBe(201);
      return eventually(() => outside.get(`/wallet/transactions/${created.body.data.id}`).then((r) => r.body.data), (t) => t.status !== 'pending', { what: 'external record matched' });
    };
    const toOther = await ethereum.sendRaw(await ethTransfer(owner, { value: eth('0.001'), nonce: 2 }));
    await ethereum.receipt(toOther);
    expect(await record({ asset: 'ETH', amount: '0.001', to_address: '0x2222222222222222222222222222222222222222', tx_hash: toOther })).toMatchObject({ status: 'failed', failure_reason: 'The transaction pays another address than to_address.' });
    const coin = await ethereum.sendRaw(await ethTransfer(owner, { value: eth('0.001'), nonce: 3 }));
    await ethereum.receipt(coin);
    expect(await record({ asset: 'USDC', amount: '0.001', to_address: RECIPIENT, tx_hash: coin })).toMatchObject({ status: 'failed', failure_reason: 'The transaction does not move USDC.' });
    const stranger = await ethereum.send(2, { to: RECIPIENT, value: eth('0.001') });
    await ethereum.receipt(stranger);
    expect(await record({ asset: 'ETH', amount: '0.001', to_address: RECIPIENT, tx_hash: stranger })).toMatchObject({ status: 'failed', failure_reason: 'The transaction was not sent from one of this wallet’s addresses.', value_usd: 0 });
    // a matching USDC transfer from the wallet confirms, valued at par
    const paid = await ethereum.sendRaw(await owner.signTransaction({ type: 'eip1559', chainId: 1, to: usdc.address, value: 0n, data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [RECIPIENT, 2_500_000n] }), nonce: 4, gas: 100_000n, maxFeePerGas: 2_000_000_000n, maxPriorityFeePerGas: 1_000_000_000n }));
    await final(paid);
    expect(await record({ asset: 'USDC', amount: '2.5', to_address: RECIPIENT, tx_hash: paid })).toMatchObject({ status: 'confirmed', value_usd: 250, network_fee_usd: 0 });
    // the ETH record that matched earlier took its value at the rate when the chain proved it: 0.003 ETH at 3000.00 USD
    expect(confirmed.value_usd).toBe(900);
  });
});
