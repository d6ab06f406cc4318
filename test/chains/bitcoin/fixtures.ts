import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { NetworkFamily } from '../../../libs/chains/src/registry';
import type { WatchedAddresses } from '../../../libs/chains/src/watch';

/**
 * Real Bitcoin data kept as hex under test/fixtures/bitcoin/ (origins in its README.md), and
 * what is publicly known about it. The hashes below are the blocks' and transactions' ids as
 * explorers show them.
 */
export function bitcoinFixture(name: string): Uint8Array {
  const text = readFileSync(join(__dirname, '../../fixtures/bitcoin', `${name}.hex`), 'utf8').trim();
  return Uint8Array.from(Buffer.from(text, 'hex'));
}

/** Mainnet block 0: one coinbase paying a bare public key (P2PK, no address). */
export const GENESIS = {
  file: 'mainnet-block-0',
  height: 0,
  hash: '000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f',
  parentHash: '0000000000000000000000000000000000000000000000000000000000000000',
  /** The header's timestamp: 2009-01-03T18:15:05Z. */
  time: 1231006505,
  coinbaseTxid: '4a5e1e4baab89f3a32518a88c31bc87f618f76673e2cc77ab2127b7afdeda33b',
} as const;

/**
 * Mainnet block 542,213 (2018-09-20): 4 transactions, segwit serialization (coinbase with a
 * witness commitment; transaction 2 spends a P2SH-P2WPKH input with a witness) and outputs to
 * P2PKH, P2SH and one native-segwit P2WPKH address.
 */
export const BLOCK_542213 = {
  file: 'mainnet-block-542213',
  height: 542213,
  hash: '000000000000000000143a2c56c0214236dadfd30df41d4a0345492ad6d861ec',
  parentHash: '000000000000000000085a38ccf9c046c51b96add547c466ccba3612b1eb8089',
  /** The header's timestamp (seconds since the epoch). */
  time: 1537429727,
  merkleRoot: '64a8b69cb7100430aec35825d54a48f4434f3db52dff8a02709aee3a659b5e13',
  txids: [
    'c399a9d747a422c9fc9261934f96c406cec3ca136280812f8abb8a3b9fdd868d',
    '66beaceb4be99da1e9824448231ab4fd37bacaee912381e779b37cf0e1dadad7',
    '6c6e3849acf1b570db352dc08f7776e99c344a56fbb2f019e1865d1b6e044889',
    '5b211bc589cbdf5ad86cab1e2fe91f01c8ab934d21536b35864d30a3ff778456',
  ],
  /** The native-segwit output: transaction 2, vout 1. */
  segwit: {
    txid: '6c6e3849acf1b570db352dc08f7776e99c344a56fbb2f019e1865d1b6e044889',
    vout: 1,
    address: 'bc1qg8m8gcgses87cypwsvzn6nq2u4h6kx7a92ckrn',
    sats: 1150n,
  },
} as const;

/** Transaction 2 of block 542,213 on its own (its bytes as they stand in the block). */
export const SEGWIT_TX = { file: 'mainnet-tx-6c6e3849', txid: BLOCK_542213.segwit.txid } as const;

/**
 * Testnet3 block 301,322 (2014-10-15, height from its BIP34 coinbase): 10 legacy transactions,
 * a P2PK coinbase, P2PKH outputs, and a bare 1-of-3 multisig whose "keys" are Counterparty data.
 */
export const TESTNET_301322 = {
  file: 'testnet3-block-301322',
  height: 301322,
  hash: '000000005ee8f3674748276fdc56a0202714d94bde87cd943195cc84cf57caf0',
  parentHash: '000000000c9f25eb2565f81cdbe98aa692ccda81a3532cea1301a284b8f0cc0c',
} as const;

/** The address book as the seam describes it, remembering how it was asked. */
export class FakeWatched implements WatchedAddresses {
  readonly calls: { family: NetworkFamily; addresses: readonly string[] }[] = [];
  constructor(private readonly reserved: readonly string[]) {}
  async watched(family: NetworkFamily, addresses: readonly string[]): Promise<ReadonlySet<string>> {
    this.calls.push({ family, addresses: [...addresses] });
    return new Set(addresses.filter((a) => this.reserved.includes(a)));
  }
}
