import { createPublicKey, verify } from 'node:crypto';
import { base58 } from '@scure/base';
import { SignedSendRefused } from '../evm/signed-send';
import type { ChainRegistry } from '../registry/registry';
import type { AssetCode } from '../registry/types';
import { ASSOCIATED_TOKEN_PROGRAM, SYSTEM_PROGRAM, TOKEN_2022_PROGRAM, TOKEN_PROGRAM, associatedTokenAddress, loadSolanaWeb3 } from './programs';

/** What a Solana wallet send must do: pay exactly `amount` (lamports or token units) of `asset` to `to`, from one of the wallet's addresses. */
export interface ExpectedSolanaSend {
  asset: AssetCode;
  amount: bigint;
  /** The recipient's wallet address (a token goes to its associated token account). */
  to: string;
  /** The wallet's Solana addresses; the coin's owner and the fee payer must be among them. */
  from: readonly string[];
}

export interface VerifiedSolanaSend {
  /** The transaction's id: its first signature, base58. */
  signature: string;
  /** The signed transaction as sent (base64 wire format). */
  wire: string;
  from: string;
  feePayer: string;
  recipient: string;
  amount: bigint;
  recentBlockhash: string;
  kind: 'native' | 'token';
}

/** Compute-budget instructions (priority fees) are allowed beside the one transfer. */
const COMPUTE_BUDGET_PROGRAM = 'ComputeBudget111111111111111111111111111111';
/** SystemInstruction Transfer (u32 2, then u64 lamports). */
const SYSTEM_TRANSFER = 2;
/** Token TransferChecked (u8 12, then u64 amount, u8 decimals). */
const TOKEN_TRANSFER_CHECKED = 12;

/** The Ed25519 public key of a Solana address, for node:crypto (raw 32 bytes as a JWK). */
function ed25519Key(address: Uint8Array) {
  return createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(address).toString('base64url') }, format: 'jwk' });
}

/**
 * Checks a signed Solana send (POST /wallet/transactions `signed_transaction`, base64 wire format)
 * before it is recorded and relayed: decoded with @solana/web3.js, every required signature
 * verified over the message (Ed25519, node:crypto), no address lookup tables (every account must be
 * readable here), and exactly one transfer beside optional compute-budget instructions (and, for a
 * token, the idempotent creation of the recipient's associated token account): a System transfer of
 * the lamports, or a Token `transferChecked` of the registry's mint with its decimals to the
 * recipient's associated token account, owned and fee-paid by the wallet's addresses.
 */
export async function verifySignedSolanaSend(wire: string, expected: ExpectedSolanaSend, registry: ChainRegistry): Promise<VerifiedSolanaSend> {
  const web3 = await loadSolanaWeb3();
  const on = registry.assetOn(expected.asset, 'solana');
  if (typeof wire !== 'string' || !/^[A-Za-z0-9+/]+={0,2}$/.test(wire)) throw new SignedSendRefused('signed_transaction must be the signed transaction in base64 (wire format).');
  let tx: InstanceType<typeof web3.VersionedTransaction>;
  try {
    tx = web3.VersionedTransaction.deserialize(Buffer.from(wire, 'base64'));
  } catch {
    throw new SignedSendRefused('signed_transaction is not a Solana transaction this service can read.');
  }
  const message = tx.message;
  if (message.addressTableLookups.length > 0) throw new SignedSendRefused('signed_transaction uses address lookup tables; send a transaction that lists its accounts.');
  const keys = message.staticAccountKeys.map((k) => k.toBase58());
  const signed = message.serialize();
  const required = message.header.numRequiredSignatures;
  for (let i = 0; i < required; i++) {
    const signature = tx.signatures[i];
    if (!signature || signature.every((b) => b === 0)) throw new SignedSendRefused(`signed_transaction is not signed by ${keys[i]}.`);
    if (!verify(null, signed, ed25519Key(message.staticAccountKeys[i].toBytes()), signature)) throw new SignedSendRefused('signed_transaction has a signature that does not verify.');
  }
  const ours = (address: string) => expected.from.includes(address);
  const feePayer = keys[0];
  if (!ours(feePayer)) throw new SignedSendRefused('signed_transaction’s fee payer is not one of this wallet’s addresses.');

  const transfers: { program: string; accounts: string[]; data: Uint8Array }[] = [];
  for (const ix of message.compiledInstructions) {
    const program = keys[ix.programIdIndex];
    const accounts = ix.accountKeyIndexes.map((i) => keys[i]);
    if (program === COMPUTE_BUDGET_PROGRAM) continue;
    if (program === ASSOCIATED_TOKEN_PROGRAM && on.kind === 'token') continue; // creating the recipient's token account (its address is checked below)
    transfers.push({ program, accounts, data: ix.data });
  }
  if (transfers.length !== 1) throw new SignedSendRefused(`signed_transaction must make exactly one transfer (it has ${transfers.length}).`);
  const [transfer] = transfers;
  const view = Buffer.from(transfer.data);

  let from: string;
  let recipient: string;
  let amount: bigint;
  if (on.kind === 'native') {
    if (transfer.program !== SYSTEM_PROGRAM || view.length !== 12 || view.readUInt32LE(0) !== SYSTEM_TRANSFER) throw new SignedSendRefused('signed_transaction is not a SOL transfer (System program Transfer).');
    [from, recipient] = transfer.accounts;
    amount = view.readBigUInt64LE(4);
    if (recipient !== expected.to) throw new SignedSendRefused('signed_transaction pays another address than to_address.');
  } else {
    if ((transfer.program !== TOKEN_PROGRAM && transfer.program !== TOKEN_2022_PROGRAM) || view.length !== 10 || view[0] !== TOKEN_TRANSFER_CHECKED) {
      throw new SignedSendRefused(`signed_transaction is not a ${on.asset} transferChecked (SPL Token).`);
    }
    const [, mint, destination, owner] = transfer.accounts;
    if (mint !== on.contract) throw new SignedSendRefused(`signed_transaction moves another token than ${on.asset}.`);
    if (view[9] !== on.decimals) throw new SignedSendRefused(`signed_transaction states ${view[9]} decimals; ${on.asset} has ${on.decimals}.`);
    if (destination !== associatedTokenAddress(web3, expected.to, mint, transfer.program)) throw new SignedSendRefused('signed_transaction pays another token account than to_address’s.');
    from = owner;
    recipient = expected.to;
    amount = view.readBigUInt64LE(1);
  }
  if (!ours(from)) throw new SignedSendRefused('signed_transaction moves coins of an address that is not this wallet’s.');
  if (amount !== expected.amount) throw new SignedSendRefused(`signed_transaction pays ${amount} smallest units; amount is ${expected.amount}.`);
  return {
    signature: base58.encode(tx.signatures[0]),
    wire,
    from,
    feePayer,
    recipient,
    amount,
    recentBlockhash: message.recentBlockhash,
    kind: on.kind,
  };
}
