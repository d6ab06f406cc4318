import { randomUUID } from 'node:crypto';
import { type Hex, parseEther } from 'viem';
import { english, generateMnemonic, mnemonicToAccount } from 'viem/accounts';
import { SEED_VAULT, SeedVault } from '@lib/wallets';
import type { TestApi } from '../../support/api-app';
import { eventually } from '../../support/eventually';
import { type AccountsTestApp, type Browser, steppedUpOwner } from '../../accounts/support';

/** A business's session in a browser (Service-Business on every request). */
export type Shop = ReturnType<Browser['forBusiness']>;

/** A live business named `name` whose owner's session has stepped up (POST /wallet: where payments go, §5.6): its session and id. */
export async function liveShop(app: AccountsTestApp, name: string): Promise<{ shop: Shop; businessId: string }> {
  const { b, businessId } = await steppedUpOwner(app, { name, simulated: false });
  return { shop: b.forBusiness(businessId), businessId };
}

/** liveShop with a new wallet imported: also the wallet's id and recovery phrase. */
export async function liveShopWithNewWallet(app: AccountsTestApp, name: string) {
  const { shop, businessId } = await liveShop(app, name);
  const phrase = generateMnemonic(english);
  const wallet = await shop.post('/wallet', { type: 'imported', recovery_phrase: phrase });
  expect(wallet.status).toBe(201);
  return { shop, businessId, phrase, walletId: wallet.body.data.id as string };
}

/** The phrase of a wallet created in the service, from its vault (a test reads it as the dashboard's signer would hold it). */
export async function walletPhrase(api: TestApi, walletId: string): Promise<string> {
  const phrase = await api.app.get<SeedVault>(SEED_VAULT).phrase(walletId);
  if (phrase === null) throw new Error(`no phrase for ${walletId}`);
  return phrase;
}

/** The signer of the wallet's EVM address `address` (its index found among the first 200). */
export function signerOf(phrase: string, address: string) {
  for (let i = 0; i < 200; i++) {
    const account = mnemonicToAccount(phrase, { addressIndex: i });
    if (account.address.toLowerCase() === address.toLowerCase()) return account;
  }
  throw new Error(`${address} is not among the wallet's first 200 EVM addresses`);
}

export const RECIPIENT = '0x1111111111111111111111111111111111111111' as Hex;

/** A signed EIP-1559 ETH transfer. */
export function ethTransfer(signer: ReturnType<typeof mnemonicToAccount>, fields: { to?: Hex; value: bigint; nonce: number; chainId?: number; gas?: bigint; maxFeePerGas?: bigint }) {
  return signer.signTransaction({
    type: 'eip1559',
    chainId: fields.chainId ?? 1,
    to: fields.to ?? RECIPIENT,
    value: fields.value,
    nonce: fields.nonce,
    gas: fields.gas ?? 21_000n,
    maxFeePerGas: fields.maxFeePerGas ?? 2_000_000_000n,
    maxPriorityFeePerGas: 1_000_000_000n,
  });
}

export const eth = (text: string) => parseEther(text);

/** POST /wallet/transactions with a fresh Idempotency-Key (or `key`). */
export function send(shop: Shop, body: Record<string, unknown>, key: string = randomUUID()) {
  return shop.post('/wallet/transactions', body, { 'idempotency-key': key });
}

/** A new payment of `amount` US cents (POST /payments, answered 201) and a checkout of it in `asset` on `network` (POST /checkouts): the checkout's answer. */
export async function openCheckout(shop: Shop, description: string, asset: string, network: string, amount = 3000) {
  const payment = await shop.post('/payments', { amount, currency: 'USD', description }, { 'idempotency-key': randomUUID() });
  expect(payment.status).toBe(201);
  return shop.post('/checkouts', { payment_code: (payment.body.data.url as string).split('/').pop(), asset, network }, { 'idempotency-key': randomUUID() });
}

/** Waits until checkout `checkoutId` is no longer open: the transfer paying it was detected (`what` names it in a timeout). */
export function paymentDetected(shop: Shop, checkoutId: string, what: string) {
  return eventually(() => shop.get(`/checkouts/${checkoutId}`).then((r) => r.body.data), (c) => c.status !== 'open', { what });
}

/** Pays a new ETH (or `asset`) checkout of `shop` in full on the simulated chain (its test clock); the checkout's address and amount. */
export async function fundedAddress(shop: Shop, asset = 'ETH', network = 'ethereum', amount = 10_000): Promise<{ address: string; amount: string }> {
  const checkout = await openCheckout(shop, 'Funding', asset, network, amount);
  if (checkout.status !== 201) throw new Error(`checkout: ${checkout.status} ${JSON.stringify(checkout.body)}`);
  const advanced = await shop.post('/test_clock/advance', { seconds: 30 });
  if (advanced.status !== 200) throw new Error(`advance: ${advanced.status} ${JSON.stringify(advanced.body)}`);
  await paymentDetected(shop, checkout.body.data.id, 'simulated transfer arrived');
  return { address: checkout.body.data.crypto.address, amount: checkout.body.data.crypto.amount };
}
