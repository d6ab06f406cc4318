import type { AppConfig } from '@lib/core';
import type { Sql } from '@lib/database';
import { loadSolanaWeb3 } from '@lib/chains';
import { SOLANA_LAMPORTS_PER_SIGNATURE, WalletSends, evmFeeUnits, solanaFeeUnits } from '@lib/wallets';

/**
 * What a send is checked against and what its fee shows (decision 0040 and its addendum): the funds
 * WalletSends reads for the decider — on Polygon too, whose fee coin (POL) the service does not
 * track — and the fee a signed transaction sets, in the fee coin's smallest units.
 */
describe('wallet send funds (what the decider is given)', () => {
  /** A WalletSends over a database whose payment_transfers hold `rows` for the address asked about. */
  function sendsOver(rows: { asset: string; amount: string }[]) {
    const db = { query: () => Promise.resolve({ rows, rowCount: rows.length }) } as unknown as Sql;
    const config = { evmTokens: {}, ratesUrl: null, ratesMaxAgeMs: 60_000 } as unknown as AppConfig;
    return new WalletSends(null as never, db, config);
  }
  const ADDRESS = '0xAbC0000000000000000000000000000000000001';

  it('Polygon: the USDC and USDT received are given to the decider (never "no rule"), the untracked fee coin as feeAsset null', async () => {
    const sends = sendsOver([
      { asset: 'USDC', amount: '49' },
      { asset: 'USDC', amount: '1' },
    ]);
    expect(await sends.funds('wal_1', 'polygon', ADDRESS, 'USDC')).toEqual({ asset: 50_000_000n, feeCoin: 0n, feeAsset: null });
    expect(await sends.funds('wal_1', 'polygon', ADDRESS, 'USDT')).toEqual({ asset: 0n, feeCoin: 0n, feeAsset: null });
  });

  it('Ethereum: the asset and the ETH for the fee', async () => {
    const sends = sendsOver([
      { asset: 'USDC', amount: '25' },
      { asset: 'ETH', amount: '0.01' },
    ]);
    expect(await sends.funds('wal_1', 'ethereum', ADDRESS, 'USDC')).toEqual({ asset: 25_000_000n, feeCoin: 10_000_000_000_000_000n, feeAsset: 'ETH' });
  });
});

describe('the fee a signed send sets (network_fee_usd until the chain charges it)', () => {
  it('EVM: gas limit × max fee per gas', () => {
    expect(evmFeeUnits(21_000n, 2_000_000_000n)).toBe(42_000_000_000_000n);
  });

  it('Solana: 5000 lamports a signature, plus the priority fee (unit price × the unit limit asked, or the default 200 000 a instruction), rounded up', async () => {
    const web3 = await loadSolanaWeb3();
    const payer = web3.Keypair.generate();
    const owner = web3.Keypair.generate();
    const to = web3.Keypair.generate().publicKey;
    const wire = (instructions: InstanceType<typeof web3.TransactionInstruction>[], signers = [payer]) => {
      const message = new web3.TransactionMessage({ payerKey: payer.publicKey, recentBlockhash: web3.Keypair.generate().publicKey.toBase58(), instructions }).compileToV0Message();
      const tx = new web3.VersionedTransaction(message);
      tx.sign(signers);
      return Buffer.from(tx.serialize()).toString('base64');
    };
    const transfer = (from = payer.publicKey) => web3.SystemProgram.transfer({ fromPubkey: from, toPubkey: to, lamports: 1_000n });
    expect(await solanaFeeUnits(wire([transfer()]))).toBe(SOLANA_LAMPORTS_PER_SIGNATURE);
    // another address's coin, the fee paid by the payer: two signatures
    expect(await solanaFeeUnits(wire([transfer(owner.publicKey)], [payer, owner]))).toBe(10_000n);
    // 1 000 001 micro-lamports × 300 000 units = 300 000.3 lamports → 300 001
    const limited = [web3.ComputeBudgetProgram.setComputeUnitLimit({ units: 300_000 }), web3.ComputeBudgetProgram.setComputeUnitPrice({ microLamports: 1_000_001 }), transfer()];
    expect(await solanaFeeUnits(wire(limited))).toBe(5_000n + 300_001n);
    // no limit asked: 200 000 units for the one transfer
    expect(await solanaFeeUnits(wire([web3.ComputeBudgetProgram.setComputeUnitPrice({ microLamports: 1_000 }), transfer()]))).toBe(5_000n + 200n);
  });
});
