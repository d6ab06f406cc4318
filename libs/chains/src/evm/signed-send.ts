import {
  type Address,
  type Hex,
  decodeFunctionData,
  erc20Abi,
  isHex,
  keccak256,
  parseAbi,
  parseTransaction,
  recoverTransactionAddress,
  recoverTypedDataAddress,
  serializeSignature,
} from 'viem';
import { Refusal } from '@lib/domain';
import type { ChainRegistry } from '../registry/registry';
import type { AssetCode, NetworkId } from '../registry/types';

/**
 * What a wallet send must do (POST /wallet/transactions, spec §4): pay exactly `amount` (smallest
 * units) of `asset` on `network` to `to`, from one of the wallet's own addresses.
 */
export interface ExpectedEvmSend {
  network: NetworkId;
  asset: AssetCode;
  amount: bigint;
  to: string;
  /** The wallet's addresses on this network family; the signer must be one of them. */
  from: readonly string[];
}

/** A signed send the service checked: what it does, as the chain will see it. */
export interface VerifiedEvmSend {
  /** The transaction hash (keccak256 of the signed bytes), lower case. */
  hash: Hex;
  serialized: Hex;
  /** The address whose coins move: the transaction's signer, or an EIP-3009 authorization's signer. */
  from: Address;
  /** Who pays the fee: the transaction's signer (another address of the wallet than `from` for an EIP-3009 send). */
  feePayer: Address;
  /** The EIP-3009 authorization the transaction submits, when it is one (`transferWithAuthorization`). */
  authorization: TransferAuthorization | null;
  /** Who receives the coin: the transaction's `to` for a native coin, the transfer's recipient for a token. */
  recipient: Address;
  amount: bigint;
  nonce: number;
  chainId: number;
  gas: bigint;
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
  kind: 'native' | 'token';
}

/**
 * A signed transaction or authorization that does not do what the request says. Always a
 * client's mistake: 400 invalid_request naming `field` (spec §4, §7). Pure: no HTTP types.
 */
export class SignedSendRefused extends Refusal<'invalid_request'> {
  override readonly name = 'SignedSendRefused';
  constructor(message: string, field = 'signed_transaction') {
    super('invalid_request', message, field);
  }
}

/** How a signed send may move a token: EIP-3009 authorizations over the token's EIP-712 domain, checked at `now`. */
export interface SignedSendOptions {
  authorizations?: { domain: TokenDomain; now: Date };
}

/** USDC's EIP-3009 entry point (FiatTokenV2: the v, r, s form). */
export const TRANSFER_WITH_AUTHORIZATION_ABI = parseAbi([
  'function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, uint8 v, bytes32 r, bytes32 s)',
]);

/** USDC's EIP-712 domain on Ethereum and Polygon (FiatTokenV2: name "USD Coin", version "2"); the chain id and contract come from the registry. */
export const USDC_EIP712_DOMAIN: TokenDomain = { name: 'USD Coin', version: '2' };

/** The authorization a `transferWithAuthorization` call carries, or null when the call data is not one. */
export function decodeTransferWithAuthorization(data: Hex): TransferAuthorization | null {
  let call: ReturnType<typeof decodeFunctionData<typeof TRANSFER_WITH_AUTHORIZATION_ABI>>;
  try {
    call = decodeFunctionData({ abi: TRANSFER_WITH_AUTHORIZATION_ABI, data });
  } catch {
    return null;
  }
  const [from, to, value, validAfter, validBefore, nonce, v, r, s] = call.args;
  return { from, to, value, validAfter, validBefore, nonce, signature: serializeSignature({ r, s, v: BigInt(v) }) };
}

/**
 * Checks a signed EVM send before it is recorded and relayed (pure but for signature recovery;
 * viem does the decoding): an EIP-1559 transaction (type 2) for the network's chain id, signed by
 * one of the wallet's addresses, that pays exactly the amount to the recipient — the coin's value
 * with no call data for the native coin, or an ERC-20 `transfer(to, amount)` to the registry's
 * contract with no value for a token. With `options.authorizations`, a token send may also be a
 * `transferWithAuthorization` (EIP-3009) submitted by one of the wallet's addresses for another
 * (one holding no gas): the authorization is checked by verifyTransferAuthorization, `from` is its
 * signer and `feePayer` the transaction's. Anything else is refused with the reason in words.
 */
export async function verifySignedEvmSend(signed: string, expected: ExpectedEvmSend, registry: ChainRegistry, options: SignedSendOptions = {}): Promise<VerifiedEvmSend> {
  if (typeof signed !== 'string' || !isHex(signed, { strict: true }) || signed.length < 4) throw new SignedSendRefused('signed_transaction must be the signed transaction as 0x-prefixed hex.');
  const serialized = signed.toLowerCase() as Hex;
  const network = registry.network(expected.network);
  if (network.family !== 'evm' || network.chainId === null) throw new SignedSendRefused(`${expected.network} does not take EVM transactions.`, 'network');
  const on = registry.assetOn(expected.asset, expected.network);

  let tx: ReturnType<typeof parseTransaction>;
  try {
    tx = parseTransaction(serialized);
  } catch {
    throw new SignedSendRefused('signed_transaction is not a signed transaction this service can read.');
  }
  if (tx.type !== 'eip1559') throw new SignedSendRefused(`signed_transaction must be an EIP-1559 (type 2) transaction, not ${tx.type}.`);
  if (tx.r === undefined || tx.s === undefined || (tx.yParity === undefined && tx.v === undefined)) throw new SignedSendRefused('signed_transaction is not signed.');
  if (tx.chainId !== network.chainId) throw new SignedSendRefused(`signed_transaction is for chain ${tx.chainId ?? 'none'}; ${network.name} is chain ${network.chainId}.`);
  if (tx.to === undefined || tx.to === null) throw new SignedSendRefused('signed_transaction creates a contract; it must send coins.');

  let from: Address;
  try {
    from = await recoverTransactionAddress({ serializedTransaction: serialized as Parameters<typeof recoverTransactionAddress>[0]['serializedTransaction'] });
  } catch {
    throw new SignedSendRefused('signed_transaction has a signature that does not verify.');
  }
  if (!expected.from.some((a) => registry.sameAddress(expected.network, a, from))) throw new SignedSendRefused('signed_transaction is not signed by one of this wallet’s addresses.');

  let recipient: Address;
  let amount: bigint;
  let owner: Address = from;
  let authorization: TransferAuthorization | null = null;
  if (on.kind === 'native') {
    if (tx.data !== undefined && tx.data !== '0x') throw new SignedSendRefused(`signed_transaction calls a contract; a ${on.asset} send carries no call data.`);
    recipient = tx.to;
    amount = tx.value ?? 0n;
  } else {
    if (!registry.sameAddress(expected.network, tx.to, on.contract!)) throw new SignedSendRefused(`signed_transaction does not call the ${on.asset} contract on ${network.name}.`);
    if ((tx.value ?? 0n) !== 0n) throw new SignedSendRefused(`signed_transaction sends ${network.nativeCurrency.symbol} with a ${on.asset} transfer.`);
    authorization = decodeTransferWithAuthorization(tx.data ?? '0x');
    if (authorization !== null) {
      // EIP-3009: the transaction's signer submits (and pays the gas of) a transfer another address authorized
      if (!options.authorizations) throw new SignedSendRefused(`signed_transaction submits a transfer authorization; ${on.asset} on ${network.name} takes none here.`);
      owner = await verifyTransferAuthorization(authorization, expected, options.authorizations.domain, options.authorizations.now, registry, 'signed_transaction');
      recipient = authorization.to as Address;
      amount = authorization.value;
    } else {
      let call: ReturnType<typeof decodeFunctionData<typeof erc20Abi>>;
      try {
        call = decodeFunctionData({ abi: erc20Abi, data: tx.data ?? '0x' });
      } catch {
        throw new SignedSendRefused(`signed_transaction is not an ERC-20 transfer of ${on.asset}.`);
      }
      if (call.functionName !== 'transfer') throw new SignedSendRefused(`signed_transaction calls ${call.functionName}; a send is transfer(to, amount).`);
      [recipient, amount] = call.args as readonly [Address, bigint];
    }
  }
  if (!registry.sameAddress(expected.network, recipient, expected.to)) throw new SignedSendRefused('signed_transaction pays another address than to_address.');
  if (amount !== expected.amount) throw new SignedSendRefused(`signed_transaction pays ${amount} smallest units; amount is ${expected.amount}.`);
  return {
    hash: keccak256(serialized),
    serialized,
    from: owner,
    feePayer: from,
    authorization,
    recipient,
    amount,
    nonce: tx.nonce ?? 0,
    chainId: tx.chainId,
    gas: tx.gas ?? 0n,
    maxFeePerGas: tx.maxFeePerGas ?? 0n,
    maxPriorityFeePerGas: tx.maxPriorityFeePerGas ?? 0n,
    kind: on.kind,
  };
}

/** An EIP-3009 `transferWithAuthorization` as the wallet's owner signed it (typed data), for a relayer to submit. */
export interface TransferAuthorization {
  from: string;
  to: string;
  value: bigint;
  validAfter: bigint;
  validBefore: bigint;
  /** 32 random bytes, hex: the token contract refuses a nonce used before. */
  nonce: Hex;
  signature: Hex;
}

/** The EIP-712 types of EIP-3009's TransferWithAuthorization. */
export const TRANSFER_WITH_AUTHORIZATION_TYPES = {
  TransferWithAuthorization: [
    { name: 'from', type: 'address' },
    { name: 'to', type: 'address' },
    { name: 'value', type: 'uint256' },
    { name: 'validAfter', type: 'uint256' },
    { name: 'validBefore', type: 'uint256' },
    { name: 'nonce', type: 'bytes32' },
  ],
} as const;

/** The token's EIP-712 domain (USDC's: name "USD Coin", version "2"; the test token may differ). */
export interface TokenDomain {
  name: string;
  version: string;
}

/**
 * Checks an EIP-3009 authorization for a token send from an address with no gas (a USDC send paid
 * for by another of the wallet's addresses): signed over the token's EIP-712 domain on the
 * network's chain by one of the wallet's addresses (which must be `from`), paying exactly the
 * amount to the recipient, valid at `now` (seconds). Signature recovery by viem.
 */
export async function verifyTransferAuthorization(
  authorization: TransferAuthorization,
  expected: ExpectedEvmSend,
  domain: TokenDomain,
  now: Date,
  registry: ChainRegistry,
  field = 'authorization',
): Promise<Address> {
  const network = registry.network(expected.network);
  const on = registry.assetOn(expected.asset, expected.network);
  if (on.kind !== 'token' || network.chainId === null) throw new SignedSendRefused(`${expected.asset} on ${network.name} is not a token with transfer authorizations.`, field);
  if (!isHex(authorization.nonce, { strict: true }) || authorization.nonce.length !== 66) throw new SignedSendRefused('authorization.nonce must be 32 bytes of hex.', field);
  let signer: Address;
  try {
    signer = await recoverTypedDataAddress({
      domain: { name: domain.name, version: domain.version, chainId: network.chainId, verifyingContract: on.contract as Address },
      types: TRANSFER_WITH_AUTHORIZATION_TYPES,
      primaryType: 'TransferWithAuthorization',
      message: { from: authorization.from as Address, to: authorization.to as Address, value: authorization.value, validAfter: authorization.validAfter, validBefore: authorization.validBefore, nonce: authorization.nonce },
      signature: authorization.signature,
    });
  } catch {
    throw new SignedSendRefused('authorization has a signature that does not verify.', field);
  }
  if (!registry.sameAddress(expected.network, signer, authorization.from)) throw new SignedSendRefused('authorization is not signed by its from address.', field);
  if (!expected.from.some((a) => registry.sameAddress(expected.network, a, signer))) throw new SignedSendRefused('authorization is not signed by one of this wallet’s addresses.', field);
  if (!registry.sameAddress(expected.network, authorization.to, expected.to)) throw new SignedSendRefused('authorization pays another address than to_address.', field);
  if (authorization.value !== expected.amount) throw new SignedSendRefused(`authorization pays ${authorization.value} smallest units; amount is ${expected.amount}.`, field);
  const seconds = BigInt(Math.floor(now.getTime() / 1000));
  if (seconds <= authorization.validAfter || seconds >= authorization.validBefore) throw new SignedSendRefused('authorization is not valid now (validAfter, validBefore).', field);
  return signer;
}
