import { Transaction } from '@scure/btc-signer';
import { RawTx } from '@scure/btc-signer/script';
import {
  BitcoinDecodeError,
  bitcoinOutputAddress,
  decodeBitcoinBlock,
  decodeBitcoinHeader,
  decodeBitcoinTransaction,
} from '../../../libs/chains/src/bitcoin';
import { createHash } from 'node:crypto';
import { base58Encode, encodeSegwitAddress, isValidBitcoinAddress, normalizeAddress } from '../../../libs/chains/src/registry';
import { BLOCK_542213, GENESIS, SEGWIT_TX, TESTNET_301322, bitcoinFixture } from './fixtures';

const fromHex = (h: string): Uint8Array => Uint8Array.from(Buffer.from(h, 'hex'));
const sha256 = (b: Uint8Array): Buffer => createHash('sha256').update(b).digest();
/** Base58Check from node:crypto and the registry's base58: version byte, payload, 4 checksum bytes. */
const base58CheckEncode = (payload: Uint8Array): string => base58Encode(Uint8Array.from([...payload, ...sha256(sha256(payload)).subarray(0, 4)]));

describe('decodeBitcoinHeader', () => {
  it('hashes the genesis header to the genesis block hash, with an all-zero parent', () => {
    const header = decodeBitcoinHeader(bitcoinFixture(GENESIS.file));
    expect(header).toEqual({
      hash: GENESIS.hash,
      parentHash: GENESIS.parentHash,
      merkleRoot: GENESIS.coinbaseTxid,
      version: 1,
      time: 1231006505,
      bits: 0x1d00ffff,
      nonce: 2083236893,
    });
  });

  it('reads block 542,213: its hash, its parent (block 542,212) and its merkle root', () => {
    const header = decodeBitcoinHeader(bitcoinFixture(BLOCK_542213.file));
    expect(header.hash).toBe(BLOCK_542213.hash);
    expect(header.parentHash).toBe(BLOCK_542213.parentHash);
    expect(header.merkleRoot).toBe(BLOCK_542213.merkleRoot);
    expect(header.version).toBe(0x20000000); // BIP9 version bits
    expect(header.time).toBe(1537429727);
  });

  it('refuses fewer than 80 bytes', () => {
    expect(() => decodeBitcoinHeader(bitcoinFixture(GENESIS.file).subarray(0, 79))).toThrow(BitcoinDecodeError);
  });
});

describe('decodeBitcoinBlock', () => {
  it('decodes the genesis block: one coinbase, the well-known txid, 50 BTC to a bare public key', () => {
    const block = decodeBitcoinBlock(bitcoinFixture(GENESIS.file));
    expect(block.hash).toBe(GENESIS.hash);
    expect(block.transactions).toHaveLength(1);
    const [coinbase] = block.transactions;
    expect(coinbase.txid).toBe(GENESIS.coinbaseTxid);
    expect(coinbase.outputs).toHaveLength(1);
    expect(coinbase.outputs[0].amount).toBe(5_000_000_000n);
    expect(bitcoinOutputAddress(coinbase.outputs[0].script)).toBeNull(); // P2PK has no address
  });

  it('decodes a segwit block: every txid, checked against the header merkle root', () => {
    const block = decodeBitcoinBlock(bitcoinFixture(BLOCK_542213.file));
    expect(block.hash).toBe(BLOCK_542213.hash);
    expect(block.parentHash).toBe(BLOCK_542213.parentHash);
    expect(block.transactions.map((tx) => tx.txid)).toEqual(BLOCK_542213.txids);
    expect(block.transactions.map((tx) => tx.segwit)).toEqual([true, false, true, false]);
    expect(block.transactions.map((tx) => tx.inputCount)).toEqual([1, 1, 1, 10]);
  });

  it('spells every output as the address explorers show, in the registry form', () => {
    const block = decodeBitcoinBlock(bitcoinFixture(BLOCK_542213.file));
    const outputs = block.transactions.map((tx) => tx.outputs.map((o) => [bitcoinOutputAddress(o.script), o.amount]));
    expect(outputs).toEqual([
      [['1Nh7uHdvY6fNwtQtM1G5EZAFPLC33B59rB', 1_250_004_874n], [null, 0n]], // coinbase; OP_RETURN witness commitment
      [['1D69P8wysTnTw6CEvX7ShcYFZQaothNGbL', 750_000n], ['14mrcvcB1fgk7x7PJXUzBxwsU5j9bfPXJh', 19_248_870n]],
      [['3HXqvg1xnpL4iHn2LFn7yznEWhc1u3LsBe', 1_627_238n], [BLOCK_542213.segwit.address, BLOCK_542213.segwit.sats]],
      [['1K7JmKRpyAEDENgbkRKrdSaT3Q1bdY1YVn', 32_514n], ['37ag8geFBRVMqB9bGTLCWqZ1LUVjbrcs8n', 43_753_861n]],
    ]);
    for (const [address] of outputs.flat()) {
      if (address === null) continue;
      expect(isValidBitcoinAddress(address as string)).toBe(true);
      expect(normalizeAddress('bitcoin', address as string)).toBe(address);
    }
  });

  it('spells the same addresses as Base58Check over node:crypto and the registry\'s Bech32 encoding', () => {
    const block = decodeBitcoinBlock(bitcoinFixture(BLOCK_542213.file));
    let checked = 0;
    for (const output of block.transactions.flatMap((tx) => tx.outputs)) {
      const s = output.script;
      let expected: string | null = null;
      if (s.length === 25 && s[0] === 0x76 && s[1] === 0xa9 && s[2] === 0x14) expected = base58CheckEncode(Uint8Array.from([0x00, ...s.subarray(3, 23)]));
      if (s.length === 23 && s[0] === 0xa9 && s[1] === 0x14) expected = base58CheckEncode(Uint8Array.from([0x05, ...s.subarray(2, 22)]));
      if (s.length === 22 && s[0] === 0x00 && s[1] === 0x14) expected = encodeSegwitAddress('bc', 0, s.subarray(2));
      expect(bitcoinOutputAddress(s)).toBe(expected);
      if (expected !== null) checked++;
    }
    expect(checked).toBe(7);
  });

  it('decodes a testnet block with a bare multisig of data "keys" without throwing, and spells testnet addresses', () => {
    const block = decodeBitcoinBlock(bitcoinFixture(TESTNET_301322.file));
    expect(block.hash).toBe(TESTNET_301322.hash);
    expect(block.parentHash).toBe(TESTNET_301322.parentHash);
    expect(block.transactions).toHaveLength(10);
    const tx3 = block.transactions[3].outputs;
    expect(tx3.map((o) => bitcoinOutputAddress(o.script, 'testnet'))).toEqual(['mvVrJ398S7Wyd5NQVm6jmv1aTWYR6jVQTZ', null, 'mibgtYjv7fegKXGLnuvAzzKNakGxAGA98x']);
    // the same script spells differently per chain
    expect(bitcoinOutputAddress(tx3[0].script, 'mainnet')).toBe('1Fytzz49d65iqxtnnC8MwzoFbWwiBYkY9F');
    expect(bitcoinOutputAddress(tx3[0].script, 'regtest')).toBe('mvVrJ398S7Wyd5NQVm6jmv1aTWYR6jVQTZ'); // base58 versions shared with testnet
  });

  it('fails loudly on a changed byte (merkle root) or missing bytes, never with wrong outputs', () => {
    const raw = bitcoinFixture(BLOCK_542213.file);
    const changed = Uint8Array.from(raw);
    changed[changed.length - 10] ^= 0x01; // inside the last output's script
    expect(() => decodeBitcoinBlock(changed)).toThrow(/merkle root/);
    expect(() => decodeBitcoinBlock(raw.subarray(0, raw.length - 1))).toThrow(BitcoinDecodeError);
    expect(() => decodeBitcoinBlock(Uint8Array.from([...raw, 0]))).toThrow(BitcoinDecodeError);
  });
});

describe('decodeBitcoinTransaction', () => {
  it('decodes a real segwit transaction (marker, flag, witness) to its txid and outputs', () => {
    const raw = bitcoinFixture(SEGWIT_TX.file);
    const tx = decodeBitcoinTransaction(raw);
    expect(tx.txid).toBe(SEGWIT_TX.txid);
    expect(tx.segwit).toBe(true);
    expect(tx.outputs.map((o) => ({ vout: o.vout, amount: o.amount, address: bitcoinOutputAddress(o.script) }))).toEqual([
      { vout: 0, amount: 1_627_238n, address: '3HXqvg1xnpL4iHn2LFn7yznEWhc1u3LsBe' },
      { vout: 1, amount: 1150n, address: 'bc1qg8m8gcgses87cypwsvzn6nq2u4h6kx7a92ckrn' },
    ]);
  });

  it('agrees with btc-signer Transaction.fromRaw on the txid and the output addresses', () => {
    const raw = bitcoinFixture(SEGWIT_TX.file);
    const tx = Transaction.fromRaw(raw, { allowUnknownOutputs: true, disableScriptCheck: true });
    expect(tx.id).toBe(decodeBitcoinTransaction(raw).txid);
    expect([tx.getOutputAddress(0), tx.getOutputAddress(1)]).toEqual(['3HXqvg1xnpL4iHn2LFn7yznEWhc1u3LsBe', BLOCK_542213.segwit.address]);
  });

  it('gives a txid even when an input has neither scriptSig nor witness (where Transaction#id throws)', () => {
    // the segwit transaction with its scriptSig and witness removed: how a pay-to-anchor spend looks
    const decoded = RawTx.decode(bitcoinFixture(SEGWIT_TX.file));
    const stripped = RawTx.encode({
      ...decoded,
      segwitFlag: false,
      witnesses: undefined,
      inputs: decoded.inputs.map((input) => ({ ...input, finalScriptSig: new Uint8Array() })),
    });
    expect(() => Transaction.fromRaw(stripped, { allowUnknownOutputs: true, disableScriptCheck: true }).id).toThrow(/not finalized/);
    const tx = decodeBitcoinTransaction(stripped);
    expect(tx.segwit).toBe(false);
    expect(tx.outputs.map((o) => o.amount)).toEqual([1_627_238n, 1150n]);
    expect(tx.txid).toMatch(/^[0-9a-f]{64}$/);
  });

  it('refuses bytes that are not a transaction', () => {
    expect(() => decodeBitcoinTransaction(fromHex('0100000000'))).toThrow(BitcoinDecodeError);
  });
});

describe('bitcoinOutputAddress', () => {
  it('has no address for OP_RETURN, empty or non-standard scripts, and never throws', () => {
    expect(bitcoinOutputAddress(fromHex('6a24aa21a9ed'))).toBeNull();
    expect(bitcoinOutputAddress(new Uint8Array())).toBeNull();
    expect(bitcoinOutputAddress(fromHex('51'))).toBeNull(); // OP_TRUE
    expect(bitcoinOutputAddress(fromHex('4e4e4e'))).toBeNull(); // truncated pushes
    expect(bitcoinOutputAddress(fromHex('0014' + 'ab'.repeat(20)), 'regtest')).toMatch(/^bcrt1q/);
  });

  it('spells P2WSH and P2TR outputs as bc1q… / bc1p… (Bech32 / Bech32m)', () => {
    const p2wsh = bitcoinOutputAddress(fromHex('0020' + '11'.repeat(32)));
    const p2tr = bitcoinOutputAddress(fromHex('5120' + '79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798'));
    expect(p2wsh).toMatch(/^bc1q/);
    expect(p2tr).toMatch(/^bc1p/);
    expect(isValidBitcoinAddress(p2wsh as string)).toBe(true);
    expect(isValidBitcoinAddress(p2tr as string)).toBe(true);
  });
});
