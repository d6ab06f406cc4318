import { loadSolanaWeb3 } from '@lib/chains';

/**
 * The network fee a signed send sets, in the network coin's smallest units, before any chain has
 * charged it (decision 0040, addendum): what `network_fee_usd` shows while a send is pending, and
 * on a simulated business — which broadcasts nothing — for good. The chain's own figure (an EVM
 * receipt's gas used × effective price, a Solana meta's fee) replaces it on confirmation.
 */

/** Solana's base fee: lamports per signature the message requires. */
export const SOLANA_LAMPORTS_PER_SIGNATURE = 5_000n;
const COMPUTE_BUDGET_PROGRAM = 'ComputeBudget111111111111111111111111111111';
/** ComputeBudget instructions: SetComputeUnitLimit (u8 2, u32 units), SetComputeUnitPrice (u8 3, u64 micro-lamports per unit). */
const SET_COMPUTE_UNIT_LIMIT = 2;
const SET_COMPUTE_UNIT_PRICE = 3;
/** Without SetComputeUnitLimit a transaction may use 200 000 units per instruction (compute-budget ones aside), at most 1 400 000. */
const DEFAULT_UNITS_PER_INSTRUCTION = 200_000n;
const MAX_COMPUTE_UNITS = 1_400_000n;
const MICRO_LAMPORTS_PER_LAMPORT = 1_000_000n;

/** The most an EIP-1559 transaction's fee can cost: its gas limit × max fee per gas (wei). */
export function evmFeeUnits(gas: bigint, maxFeePerGas: bigint): bigint {
  return gas * maxFeePerGas;
}

/**
 * The fee of a signed Solana transaction (base64 wire), in lamports: 5000 per required signature,
 * plus its priority fee — the compute-unit price × the compute-unit limit it requests (or the
 * default limit), in micro-lamports, rounded up — which is what the runtime charges for it.
 */
export async function solanaFeeUnits(wire: string): Promise<bigint> {
  const web3 = await loadSolanaWeb3();
  const message = web3.VersionedTransaction.deserialize(Buffer.from(wire, 'base64')).message;
  const keys = message.staticAccountKeys.map((k) => k.toBase58());
  let limit: bigint | null = null;
  let price = 0n;
  let instructions = 0n;
  for (const ix of message.compiledInstructions) {
    if (keys[ix.programIdIndex] !== COMPUTE_BUDGET_PROGRAM) {
      instructions++;
      continue;
    }
    const data = Buffer.from(ix.data);
    if (data[0] === SET_COMPUTE_UNIT_LIMIT && data.length >= 5) limit = BigInt(data.readUInt32LE(1));
    else if (data[0] === SET_COMPUTE_UNIT_PRICE && data.length >= 9) price = data.readBigUInt64LE(1);
  }
  const requested = limit ?? instructions * DEFAULT_UNITS_PER_INSTRUCTION;
  const units = requested < MAX_COMPUTE_UNITS ? requested : MAX_COMPUTE_UNITS;
  const priority = (price * units + MICRO_LAMPORTS_PER_LAMPORT - 1n) / MICRO_LAMPORTS_PER_LAMPORT;
  return SOLANA_LAMPORTS_PER_SIGNATURE * BigInt(message.header.numRequiredSignatures) + priority;
}
