import { encodeFunctionData, erc20Abi, keccak256, parseEther, parseSignature, serializeTransaction, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { ExpectedEvmSend, SignedSendRefused, TOKEN_PROGRAM, TRANSFER_WITH_AUTHORIZATION_ABI, TRANSFER_WITH_AUTHORIZATION_TYPES, USDC_EIP712_DOMAIN, associatedTokenAddress, defaultRegistry, loadSolanaWeb3, verifySignedEvmSend, verifySignedSolanaSend, verifyTransferAuthorization } from '@lib/chains';

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
  const expected: ExpectedEvmSend = { network: 'ethereum', asset: 'USDC', amount: 25_000_000n, to: shop, from: [owner.address] };

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

describe('an EIP-3009 send: transferWithAuthorization submitted by another of the wallet’s addresses (verifySignedEvmSend)', () => {
  const holder = privateKeyToAccount(generatePrivateKey());
  const submitter = privateKeyToAccount(generatePrivateKey());
  const shop = privateKeyToAccount(generatePrivateKey()).address;
  const usdc = defaultRegistry.assetOn('USDC', 'polygon').contract as Hex;
  const now = new Date('2026-11-27T12:00:00Z');
  const expected: ExpectedEvmSend = { network: 'polygon', asset: 'USDC', amount: 10_000_000n, to: shop, from: [holder.address, submitter.address] };
  const options = { authorizations: { domain: USDC_EIP712_DOMAIN, now } };

  async function submitted(value = 10_000_000n, by = submitter, signer = holder) {
    const message = { from: holder.address, to: shop, value, validAfter: 0n, validBefore: BigInt(now.getTime() / 1000) + 600n, nonce: `0x${'cd'.repeat(32)}` as Hex };
    const signature = await signer.signTypedData({ domain: { ...USDC_EIP712_DOMAIN, chainId: 137, verifyingContract: usdc }, types: TRANSFER_WITH_AUTHORIZATION_TYPES, primaryType: 'TransferWithAuthorization', message });
    const { r, s, v } = parseSignature(signature);
    const data = encodeFunctionData({ abi: TRANSFER_WITH_AUTHORIZATION_ABI, functionName: 'transferWithAuthorization', args: [message.from, message.to, message.value, message.validAfter, message.validBefore, message.nonce, Number(v), r, s] });
    return by.signTransaction({ type: 'eip1559', chainId: 137, nonce: 3, gas: 120_000n, maxFeePerGas: 50_000_000_000n, maxPriorityFeePerGas: 30_000_000_000n, to: usdc, value: 0n, data });
  }

  it('given the holder’s authorization submitted by another wallet address: the USDC is the holder’s, the fee the submitter’s', async () => {
    const verified = await verifySignedEvmSend(await submitted(), expected, defaultRegistry, options);
    expect(verified).toMatchObject({ from: holder.address, feePayer: submitter.address, amount: 10_000_000n, kind: 'token', authorization: { from: holder.address, value: 10_000_000n } });
    expect(verified.recipient.toLowerCase()).toBe(shop.toLowerCase());
  });

  it('refuses it where authorizations are not taken, for another amount, signed by another key, or submitted from outside the wallet', async () => {
    await expect(verifySignedEvmSend(await submitted(), expected, defaultRegistry)).rejects.toThrow(/takes none here/);
    await expect(verifySignedEvmSend(await submitted(10_000_001n), expected, defaultRegistry, options)).rejects.toThrow(/amount is 10000000/);
    await expect(verifySignedEvmSend(await submitted(10_000_000n, submitter, submitter), expected, defaultRegistry, options)).rejects.toThrow(/not signed by its from address/);
    await expect(verifySignedEvmSend(await submitted(), { ...expected, from: [holder.address] }, defaultRegistry, options)).rejects.toThrow(/not signed by one of this wallet/);
    const refusal = (await verifySignedEvmSend(await submitted(10_000_001n), expected, defaultRegistry, options).catch((e: unknown) => e)) as SignedSendRefused;
    expect(refusal).toBeInstanceOf(SignedSendRefused);
    expect([refusal.code, refusal.field]).toEqual(['invalid_request', 'signed_transaction']);
  });
});

describe('a signed Solana send (verifySignedSolanaSend)', () => {
  const blockhash = 'GHtXQBsoZHVnNFa9YevAzFr17DJjgHXk3ycTKD5xD3Zi';
  const usdcMint = defaultRegistry.assetOn('USDC', 'solana').contract!;

  async function setUp() {
    const web3 = await loadSolanaWeb3();
    const owner = web3.Keypair.generate();
    const stranger = web3.Keypair.generate();
    const shop = web3.Keypair.generate().publicKey.toBase58();
    const wire = (tx: InstanceType<typeof web3.Transaction>, ...signers: InstanceType<typeof web3.Keypair>[]) => {
      tx.recentBlockhash = blockhash;
      tx.feePayer = signers[0].publicKey;
      tx.sign(...signers);
      return tx.serialize().toString('base64');
    };
    const sol = (lamports: bigint, to = shop, from = owner) =>
      new web3.Transaction().add(web3.SystemProgram.transfer({ fromPubkey: from.publicKey, toPubkey: new web3.PublicKey(to), lamports }));
    /** SPL Token transferChecked: [12, amount u64 LE, decimals u8]; accounts source, mint, destination, owner. */
    const token = (amount: bigint, { to = shop, mint = usdcMint, decimals = 6, from = owner } = {}) => {
      const data = Buffer.alloc(10);
      data[0] = 12;
      data.writeBigUInt64LE(amount, 1);
      data[9] = decimals;
      const keys = [
        { pubkey: new web3.PublicKey(associatedTokenAddress(web3, from.publicKey.toBase58(), mint)), isSigner: false, isWritable: true },
        { pubkey: new web3.PublicKey(mint), isSigner: false, isWritable: false },
        { pubkey: new web3.PublicKey(associatedTokenAddress(web3, to, mint)), isSigner: false, isWritable: true },
        { pubkey: from.publicKey, isSigner: true, isWritable: false },
      ];
      return new web3.Transaction().add(new web3.TransactionInstruction({ programId: new web3.PublicKey(TOKEN_PROGRAM), keys, data }));
    };
    const expected = (asset: 'SOL' | 'USDC', amount: bigint) => ({ asset, amount, to: shop, from: [owner.publicKey.toBase58()] });
    return { web3, owner, stranger, shop, wire, sol, token, expected };
  }

  async function refused(wire: string, expected: Parameters<typeof verifySignedSolanaSend>[1]): Promise<string> {
    try {
      await verifySignedSolanaSend(wire, expected, defaultRegistry);
    } catch (error) {
      expect(error).toBeInstanceOf(SignedSendRefused);
      return (error as Error).message;
    }
    throw new Error('accepted');
  }

  it('given a SOL transfer and a USDC transferChecked signed by the wallet: what they do, and the signature as the id', async () => {
    const { owner, shop, wire, sol, token, expected } = await setUp();
    const lamports = await verifySignedSolanaSend(wire(sol(1_500_000_000n), owner), expected('SOL', 1_500_000_000n), defaultRegistry);
    expect(lamports).toMatchObject({ kind: 'native', amount: 1_500_000_000n, from: owner.publicKey.toBase58(), recipient: shop, recentBlockhash: blockhash });
    expect(lamports.signature).toMatch(/^[1-9A-HJ-NP-Za-km-z]{64,88}$/);
    const usdc = await verifySignedSolanaSend(wire(token(25_000_000n), owner), expected('USDC', 25_000_000n), defaultRegistry);
    expect(usdc).toMatchObject({ kind: 'token', amount: 25_000_000n, recipient: shop });
  });

  it('refuses a tampered amount, recipient, mint, decimals, signer, or a signature that does not verify', async () => {
    const { owner, stranger, wire, sol, token, expected } = await setUp();
    expect(await refused(wire(sol(1n), owner), expected('SOL', 2n))).toMatch(/pays 1 smallest units; amount is 2/);
    expect(await refused(wire(sol(2n, stranger.publicKey.toBase58()), owner), expected('SOL', 2n))).toMatch(/another address/);
    expect(await refused(wire(token(5n, { to: stranger.publicKey.toBase58() }), owner), expected('USDC', 5n))).toMatch(/another token account/);
    expect(await refused(wire(token(5n, { mint: defaultRegistry.assetOn('USDT', 'solana').contract! }), owner), expected('USDC', 5n))).toMatch(/another token than USDC/);
    expect(await refused(wire(token(5n, { decimals: 9 }), owner), expected('USDC', 5n))).toMatch(/9 decimals; USDC has 6/);
    expect(await refused(wire(sol(2n, undefined, stranger), stranger), expected('SOL', 2n))).toMatch(/fee payer is not one of this wallet/);
    const good = Buffer.from(wire(sol(2n), owner), 'base64');
    good[10] ^= 0xff; // a byte of the signature
    expect(await refused(good.toString('base64'), expected('SOL', 2n))).toMatch(/does not verify/);
    expect(await refused('not base64!', expected('SOL', 2n))).toMatch(/base64/);
  });
});
