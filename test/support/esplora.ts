import { createHash } from 'node:crypto';
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Address, NETWORK, OutScript } from '@scure/btc-signer';
import { BTCArray, RawOldTx, RawTx } from '@scure/btc-signer/script';

/**
 * A stand-in Esplora (Blockstream's HTTP API, https://github.com/Blockstream/esplora/blob/master/API.md)
 * on a local node:http server, serving real blocks and transactions kept as fixtures. No Bitcoin
 * node or indexer runs in the tests; this answers the documented routes in the documented shapes
 * (text heights and hashes, the block JSON, binary raw blocks, 404 "Block not found") and can be
 * told to fail a route (a status) or to never answer it (a timeout).
 *
 * Heights are whatever the test says: fixtures are real blocks, but not consecutive ones.
 */

export interface ServedBlock {
  readonly height: number;
  /** The serialized block (80-byte header, transactions). */
  readonly raw: Uint8Array;
}

/** What a faulted route does instead: never answer, or answer this. */
export type EsploraFault = 'hang' | { readonly status: number; readonly body?: string | Uint8Array; readonly contentType?: string };

export interface TestEsplora {
  /** Base URL, with the path prefix (like https://blockstream.info/api). */
  readonly url: string;
  /** Paths asked for (prefix removed), in order. */
  readonly requests: string[];
  /** Serves these blocks as the best chain (replacing the previous ones); the tip is the highest unless set. */
  setBlocks(blocks: readonly ServedBlock[], tipHeight?: number): void;
  /** Serves a transaction's bytes under its txid. */
  addTransaction(txid: string, raw: Uint8Array): void;
  /**
   * Puts a transaction (its serialized bytes, legacy or segwit) in the mempool, as a broadcast
   * does: listed unconfirmed by GET /address/:address/txs until a served block carries it
   * (setBlocks takes it out, as a node does) or it is dropped.
   */
  broadcast(raw: Uint8Array): string;
  /** Takes a transaction out of the mempool unmined (evicted, replaced). */
  dropFromMempool(txid: string): void;
  /** Requests whose path matches `pattern` get `fault` until the returned function is called. */
  fault(pattern: RegExp, fault: EsploraFault): () => void;
  /** Removes every fault. */
  clearFaults(): void;
  close(): Promise<void>;
}

interface BlockEntry {
  readonly height: number;
  readonly raw: Uint8Array;
  readonly json: Record<string, unknown>;
}

const sha256d = (bytes: Uint8Array): Buffer => createHash('sha256').update(createHash('sha256').update(bytes).digest()).digest();
const reversedHex = (bytes: Uint8Array): string => Buffer.from(bytes).reverse().toString('hex');

type DecodedTx = ReturnType<typeof RawTx.decode>;

/** A transaction as GET /address/:address/txs lists it (the fields a watcher reads, in Esplora's shape). */
function txJson(tx: DecodedTx, status: { confirmed: false } | { confirmed: true; block_height: number; block_hash: string }): Record<string, unknown> {
  const vout = tx.outputs.map((output) => {
    let address: string | undefined;
    try {
      address = Address(NETWORK).encode(OutScript.decode(output.script));
    } catch {
      address = undefined; // a script with no address (OP_TRUE, OP_RETURN)
    }
    return { scriptpubkey: Buffer.from(output.script).toString('hex'), ...(address ? { scriptpubkey_address: address } : {}), value: Number(output.amount) };
  });
  return { txid: reversedHex(sha256d(RawOldTx.encode(tx))), version: tx.version, locktime: tx.lockTime, vout, status };
}

const paysAddress = (json: Record<string, unknown>, address: string): boolean => (json.vout as { scriptpubkey_address?: string }[]).some((o) => o.scriptpubkey_address === address);

/** Esplora's block JSON, computed from the bytes (weight from the sizes with and without witnesses). */
function blockJson(height: number, raw: Uint8Array): Record<string, unknown> {
  const header = Buffer.from(raw.subarray(0, 80));
  const txs = BTCArray(RawTx).decode(raw.subarray(80));
  const countBytes = raw.length - 80 - txs.reduce((sum, tx) => sum + RawTx.encode(tx).length, 0);
  const stripped = 80 + countBytes + txs.reduce((sum, tx) => sum + RawOldTx.encode(tx).length, 0);
  const previous = reversedHex(header.subarray(4, 36));
  return {
    id: reversedHex(sha256d(header)),
    height,
    version: header.readInt32LE(0),
    timestamp: header.readUInt32LE(68),
    tx_count: txs.length,
    size: raw.length,
    weight: stripped * 3 + raw.length,
    merkle_root: reversedHex(header.subarray(36, 68)),
    // Esplora has none for the genesis block (electrs: None when the parent is all zeros)
    ...(/^0+$/.test(previous) ? {} : { previousblockhash: previous }),
    mediantime: header.readUInt32LE(68),
    nonce: header.readUInt32LE(76),
    bits: header.readUInt32LE(72),
    difficulty: 1,
  };
}

export async function startTestEsplora(options: { prefix?: string } = {}): Promise<TestEsplora> {
  const prefix = options.prefix ?? '/api';
  const requests: string[] = [];
  const faults = new Map<number, { pattern: RegExp; fault: EsploraFault }>();
  let nextFault = 0;
  let byHeight = new Map<number, BlockEntry>();
  let byHash = new Map<string, BlockEntry>();
  let tip = -1;
  const transactions = new Map<string, Uint8Array>();
  /** txid → the transaction, in broadcast order. */
  const mempool = new Map<string, DecodedTx>();
  const minedIds = (): Set<string> => {
    const ids = new Set<string>();
    for (const entry of byHeight.values()) for (const tx of BTCArray(RawTx).decode(entry.raw.subarray(80))) ids.add(reversedHex(sha256d(RawOldTx.encode(tx))));
    return ids;
  };

  const send = (res: ServerResponse, status: number, body: string | Uint8Array, contentType = 'text/plain'): void => {
    res.writeHead(status, { 'content-type': contentType, 'content-length': Buffer.byteLength(body) });
    res.end(body);
  };

  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    const url = new URL(req.url ?? '/', 'http://esplora');
    if (!url.pathname.startsWith(`${prefix}/`)) return send(res, 404, 'Not found');
    const path = url.pathname.slice(prefix.length);
    requests.push(path);
    for (const { pattern, fault } of faults.values()) {
      if (!pattern.test(path)) continue;
      if (fault === 'hang') return; // the socket stays open until the client gives up or the server closes
      return send(res, fault.status, fault.body ?? '', fault.contentType);
    }
    if (req.method !== 'GET') return send(res, 405, 'Method not allowed');
    let match: RegExpExecArray | null;
    if (path === '/blocks/tip/height') return tip < 0 ? send(res, 404, 'Block not found') : send(res, 200, String(tip));
    if (path === '/blocks/tip/hash') {
      const entry = byHeight.get(tip);
      return entry ? send(res, 200, entry.json.id as string) : send(res, 404, 'Block not found');
    }
    if ((match = /^\/block-height\/(\d+)$/.exec(path))) {
      const entry = byHeight.get(Number(match[1]));
      return entry ? send(res, 200, entry.json.id as string) : send(res, 404, 'Block not found');
    }
    if ((match = /^\/block\/([0-9a-f]{64})(\/raw)?$/.exec(path))) {
      const entry = byHash.get(match[1]);
      if (!entry) return send(res, 404, 'Block not found');
      return match[2] ? send(res, 200, entry.raw, 'application/octet-stream') : send(res, 200, JSON.stringify(entry.json), 'application/json');
    }
    if ((match = /^\/address\/([0-9A-Za-z]+)\/txs$/.exec(path))) {
      // Esplora: every mempool transaction of the address (newest first), then its newest 25 mined ones
      const address = match[1];
      const unconfirmed = [...mempool.values()].reverse().map((tx) => txJson(tx, { confirmed: false })).filter((json) => paysAddress(json, address));
      const confirmed: Record<string, unknown>[] = [];
      for (const entry of [...byHeight.values()].sort((a, b) => b.height - a.height)) {
        for (const tx of BTCArray(RawTx).decode(entry.raw.subarray(80)).reverse()) {
          const json = txJson(tx, { confirmed: true, block_height: entry.height, block_hash: entry.json.id as string });
          if (paysAddress(json, address)) confirmed.push(json);
        }
      }
      return send(res, 200, JSON.stringify([...unconfirmed.slice(0, 50), ...confirmed.slice(0, 25)]), 'application/json');
    }
    if ((match = /^\/tx\/([0-9a-f]{64})\/hex$/.exec(path))) {
      const raw = transactions.get(match[1]);
      return raw ? send(res, 200, Buffer.from(raw).toString('hex')) : send(res, 404, 'Transaction not found');
    }
    return send(res, 400, 'Invalid request');
  };

  const server: Server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}${prefix}`,
    requests,
    setBlocks(blocks, tipHeight) {
      byHeight = new Map();
      byHash = new Map();
      for (const { height, raw } of blocks) {
        const entry = { height, raw, json: blockJson(height, raw) };
        byHeight.set(height, entry);
        byHash.set(entry.json.id as string, entry);
      }
      tip = tipHeight ?? Math.max(-1, ...blocks.map((b) => b.height));
      const mined = minedIds();
      for (const txid of [...mempool.keys()]) if (mined.has(txid)) mempool.delete(txid);
    },
    broadcast(raw) {
      const tx = RawTx.decode(raw);
      const txid = reversedHex(sha256d(RawOldTx.encode(tx)));
      if (!minedIds().has(txid)) mempool.set(txid, tx);
      return txid;
    },
    dropFromMempool(txid) {
      mempool.delete(txid);
    },
    addTransaction(txid, raw) {
      transactions.set(txid, raw);
    },
    fault(pattern, fault) {
      const id = nextFault++;
      faults.set(id, { pattern, fault });
      return () => void faults.delete(id);
    },
    clearFaults() {
      faults.clear();
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
    },
  };
}
