import { encodeFunctionData, erc20Abi, keccak256, parseEther, serializeTransaction, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { SignedSendRefused, TRANSFER_WITH_AUTHORIZATION_TYPES, defaultRegistry, verifySignedEvmSend, verifyTransferAuthorization } from '@lib/chains';

/**
 * Signed EVM sends checked before they are recorded and relayed (issue 15 point 1): the
 * transaction a wallet's owner signs must pay exactly the amount of the coin to the recipient,
 * on the network's chain, from one of the wallet's addresses. Signed here with viem's local
 * accounts as a wallet would; every tampered field is refused with the reason.
 */
describe('a signed EVM send (verifySignedEvmSend)', () => {
  const owner = privateKeyToAccount(generatePrivateKey());
  const stranger = privateKeyToAccount(generatePrivateKey());
  const shop = privateKeyToAccount(generatePrivateKey()).address;
  const usdc = defaultRegistry.assetOn('USDC', 'ethereum').contract as Hex;
  const base = { type: 'eip1559', chainId: 1, nonce: 7, gas: 60_000n, maxFeePerGas: 30_000_000_000n, maxPriorityFeePerGas: 1_000_000_000n } as const;
  const usdcTransfer = (to: Hex, amount: bigint) => ({ ...base, to: usdc, value: 0n, data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [to, amount] }) });
  const expected = { network: 'ethereum' as const, asset: 'USDC' as const, amount: 25_000_000n, to: shop, from: [owner.address] };

  async function refused(signed: string, exp = expected): Promise<string> {
    try {
      await verifySignedEvmSend(signed, exp, defaultRegistry);
    } catch (error) {
      expect(error).toBeInstanceOf(SignedSendRefused);
      expect((error as SignedSendRefused).code).toBe('invalid_request');
      return (error as Error).message;
    }
    throw new Error('accepted');
  }

  it('given a USDC transfer signed by the wallet: what it does, and its hash', async () => {
    const signed = await owner.signTransaction(usdcTransfer(shop, 25_000_000n));
    const verified = await verifySignedEvmSend(signed, expected, defaultRegistry);
    expect(verified).toMatchObject({ from: owner.address, amount: 25_000_000n, nonce: 7, chainId: 1, kind: 'token', hash: keccak256(signed) });
    expect(verified.recipient.toLowerCase()).toBe(shop.toLowerCase());
  });

  it('given an ETH send: value and recipient, no call data', async () => {
    const signed = await owner.signTransaction({ ...base, to: shop, value: parseEther('0.5') });
    const verified = await verifySignedEvmSend(signed, { ...expected, asset: 'ETH', amount: parseEther('0.5') }, defaultRegistry);
    expect(verified).toMatchObject({ kind: 'native', amount: 500_000_000_000_000_000n });
    expect(await refused(await owner.signTransaction({ ...base, to: shop, value: parseEther('0.5'), data: '0x1234' }), { ...expected, asset: 'ETH', amount: parseEther('0.5') })).toMatch(/call data/);
  });

  it('refuses a tampered amount, recipient, chain, contract or signer', async () => {
    expect(await refused(await owner.signTransaction(usdcTransfer(shop, 25_000_001n)))).toMatch(/pays 25000001 smallest units; amount is 25000000/);
    expect(await refused(await owner.signTransaction(usdcTransfer(stranger.address, 25_000_000n)))).toMatch(/another address/);
    expect(await refused(await owner.signTransaction({ ...usdcTransfer(shop, 25_000_000n), chainId: 137 }))).toMatch(/chain 137; Ethereum is chain 1/);
    expect(await refused(await owner.signTransaction({ ...usdcTransfer(shop, 25_000_000n), to: stranger.address }))).toMatch(/does not call the USDC contract/);
    expect(await refused(await stranger.signTransaction(usdcTransfer(shop, 25_000_000n)))).toMatch(/not signed by one of this wallet/);
    expect(await refused(await owner.signTransaction({ ...usdcTransfer(shop, 25_000_000n), value: 1n }))).toMatch(/sends ETH with a USDC transfer/);
    const approve = { ...base, to: usdc, value: 0n, data: encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [shop, 25_000_000n] }) };
    expect(await refused(await owner.signTransaction(approve))).toMatch(/calls approve/);
  });

  it('refuses what is not a signed EIP-1559 transaction', async () => {
    expect(await refused('not hex')).toMatch(/0x-prefixed hex/);
    expect(await refused('0x02f8')).toMatch(/this service can read/);
    expect(await refused(serializeTransaction(usdcTransfer(shop, 25_000_000n)))).toMatch(/not signed/);
    const legacy = await owner.signTransaction({ type: 'legacy', chainId: 1, nonce: 1, gas: 60_000n, gasPrice: 1n, to: usdc, data: usdcTransfer(shop, 25_000_000n).data });
    expect(await refused(legacy)).toMatch(/EIP-1559 \(type 2\)/);
  });
});

describe('an EIP-3009 transfer authorization (verifyTransferAuthorization)', () => {
  const owner = privateKeyToAccount(generatePrivateKey());
  const shop = privateKeyToAccount(generatePrivateKey()).address;
  const usdc = defaultRegistry.assetOn('USDC', 'polygon').contract as Hex;
  const domain = { name: 'USD Coin', version: '2' };
  const now = new Date('2026-11-27T12:00:00Z');
  const seconds = BigInt(now.getTime() / 1000);
  const expected = { network: 'polygon' as const, asset: 'USDC' as const, amount: 10_000_000n, to: shop, from: [owner.address] };
  const nonce = `0x${'ab'.repeat(32)}` as Hex;

  async function authorize(message: { to?: Hex; value?: bigint; validBefore?: bigint }, chainId = 137, signer = owner) {
    const full = { from: owner.address, to: message.to ?? shop, value: message.value ?? 10_000_000n, validAfter: 0n, validBefore: message.validBefore ?? seconds + 3600n, nonce };
    const signature = await signer.signTypedData({ domain: { ...domain, chainId, verifyingContract: usdc }, types: TRANSFER_WITH_AUTHORIZATION_TYPES, primaryType: 'TransferWithAuthorization', message: full });
    return { ...full, signature };
  }
  const check = (authorization: Awaited<ReturnType<typeof authorize>>) => verifyTransferAuthorization(authorization, expected, domain, now, defaultRegistry);

  it('given the owner’s authorization for exactly the amount to the recipient, valid now: its signer', async () => {
    await expect(check(await authorize({}))).resolves.toBe(owner.address);
  });

  it('refuses another amount, recipient, chain, signer, or one not valid now', async () => {
    await expect(check(await authorize({ value: 10_000_001n }))).rejects.toThrow(/amount is 10000000/);
    await expect(check(await authorize({ to: owner.address }))).rejects.toThrow(/another address/);
    await expect(check(await authorize({}, 1))).rejects.toThrow(/not signed by its from address/);
    await expect(check(await authorize({}, 137, privateKeyToAccount(generatePrivateKey())))).rejects.toThrow(/not signed by its from address/);
    await expect(check(await authorize({ validBefore: seconds }))).rejects.toThrow(/not valid now/);
  });
});
