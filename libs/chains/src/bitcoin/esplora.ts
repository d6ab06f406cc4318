/**
 * A thin client of the Esplora HTTP API (Blockstream's esplora / electrs, mempool.space's
 * backend, and the other indexers that copy its interface): the block and transaction reads a
 * watcher needs, each one request with a deadline, no retries (the watcher retries), no state.
 * API reference: https://github.com/Blockstream/esplora/blob/master/API.md
 *
 * An answer of 404 for a block or transaction is "none there" (null); any other failure —
 * another status, a timeout, a refused connection, a body that is not what the API documents —
 * is an `EsploraError`.
 */

export type EsploraErrorKind = 'timeout' | 'network' | 'status' | 'malformed';

export class EsploraError extends Error {
  override readonly name = 'EsploraError';
  constructor(
    readonly kind: EsploraErrorKind,
    /** The path asked for, e.g. `/block-height/800000` (never the base URL, which may carry credentials). */
    readonly path: string,
    message: string,
    /** The HTTP status, for `status` (and `malformed` answers that had one). */
    readonly status: number | null = null,
    options?: { cause?: unknown },
  ) {
    super(`Esplora ${path}: ${message}`, options);
  }
}

/** One transaction of GET /address/:address/txs, the fields a watcher uses: its id, whether it is mined, its outputs. */
export interface EsploraAddressTransaction {
  readonly txid: string;
  /** In a block of the indexer's best chain (false: in its mempool). */
  readonly confirmed: boolean;
  /** Outputs in vout order: the address each pays (null: a script with none) and its value in satoshis. */
  readonly outputs: readonly { readonly address: string | null; readonly value: bigint }[];
}

/** GET /block/:hash, as Esplora documents it (fields a watcher may use; others are passed through). */
export interface EsploraBlock {
  readonly id: string;
  readonly height: number;
  readonly version: number;
  readonly timestamp: number;
  readonly bits: number;
  readonly nonce: number;
  readonly merkle_root: string;
  readonly tx_count: number;
  readonly size: number;
  readonly weight: number;
  /** Absent (or null) for the genesis block. */
  readonly previousblockhash?: string | null;
  readonly mediantime?: number;
}

export interface EsploraClientOptions {
  /** The API's base URL, e.g. `https://blockstream.info/api` or `http://127.0.0.1:3002` (BITCOIN_ESPLORA_URL). */
  readonly baseUrl: string;
  /** Deadline of each request, body included (default 10 s). */
  readonly timeoutMs?: number;
  /** Extra request headers (an API key of a hosted Esplora, say). */
  readonly headers?: Readonly<Record<string, string>>;
}

const DEFAULT_TIMEOUT_MS = 10_000;
const HASH = /^[0-9a-f]{64}$/;
const HEX = /^(?:[0-9a-f]{2})+$/;
const HEIGHT = /^\d{1,10}$/;
/** What may go into the path as an address: base58 or bech32 characters only. */
const ADDRESS = /^[0-9A-Za-z]{14,90}$/;
/** The largest block consensus allows is under 4 MB (4,000,000 weight units); a raw answer past this is not a block. */
const MAX_RAW_BLOCK_BYTES = 4_000_000;
/** Error bodies are quoted in messages up to this length. */
const QUOTED = 200;

type Reader<T> = (response: Response, path: string) => Promise<T>;

export class EsploraClient {
  private readonly baseUrl: string;
  private readonly timeoutMs: number;
  private readonly headers: Readonly<Record<string, string>>;

  constructor(options: EsploraClientOptions) {
    let url: URL;
    try {
      url = new URL(options.baseUrl);
    } catch {
      throw new TypeError('Esplora base URL is not a URL');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TypeError(`Esplora base URL must be http(s), got ${url.protocol}`);
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    if (!Number.isSafeInteger(this.timeoutMs) || this.timeoutMs <= 0) throw new RangeError('timeoutMs must be a positive integer');
    this.headers = options.headers ?? {};
  }

  /** GET /blocks/tip/height: the height of the newest block the indexer has. */
  tipHeight(): Promise<number> {
    return this.get('/blocks/tip/height', readHeight, false);
  }

  /** GET /blocks/tip/hash. */
  tipHash(): Promise<string> {
    return this.get('/blocks/tip/hash', readHash, false);
  }

  /** GET /block-height/:height: the hash of the block at `height` in the indexer's best chain, or null past its tip. */
  blockHashAtHeight(height: number): Promise<string | null> {
    checkHeight(height);
    return this.get(`/block-height/${height}`, readHash, true);
  }

  /** GET /block/:hash: the block's summary, or null when the indexer does not know the hash. */
  async block(hash: string): Promise<EsploraBlock | null> {
    const path = `/block/${checkHash(hash)}`;
    const block = await this.get(path, readBlock, true);
    if (block !== null && block.id !== hash.toLowerCase()) throw new EsploraError('malformed', path, `asked for block ${hash}, got ${block.id}`);
    return block;
  }

  /** GET /block/:hash/raw: the serialized block, or null when the indexer does not know the hash. */
  rawBlock(hash: string): Promise<Uint8Array | null> {
    return this.get(`/block/${checkHash(hash)}/raw`, readRawBlock, true);
  }

  /**
   * GET /address/:address/txs: the address's transactions the indexer knows — every one in its
   * mempool (up to 50), then its newest 25 mined ones — newest first. A watcher reads both kinds
   * in one request: a transaction gone from the mempool is told apart from one just mined.
   */
  addressTransactions(address: string): Promise<EsploraAddressTransaction[]> {
    if (typeof address !== 'string' || !ADDRESS.test(address)) throw new RangeError(`not a Bitcoin address: "${String(address)}"`);
    return this.get(`/address/${address}/txs`, readAddressTransactions, false);
  }

  /** GET /tx/:txid/hex: the serialized transaction as hex, or null when the indexer does not know it. */
  transactionHex(txid: string): Promise<string | null> {
    return this.get(`/tx/${checkHash(txid)}/hex`, readHex, true);
  }

  private async get<T>(path: string, read: Reader<T>, notFoundIsNull: true): Promise<T | null>;
  private async get<T>(path: string, read: Reader<T>, notFoundIsNull: false): Promise<T>;
  private async get<T>(path: string, read: Reader<T>, notFoundIsNull: boolean): Promise<T | null> {
    const signal = AbortSignal.timeout(this.timeoutMs);
    try {
      const response = await fetch(this.baseUrl + path, { headers: this.headers, signal });
      if (response.status === 404 && notFoundIsNull) {
        await response.body?.cancel();
        return null;
      }
      if (!response.ok) {
        const body = (await response.text()).slice(0, QUOTED).trim();
        throw new EsploraError('status', path, `HTTP ${response.status}${body ? ` (${body})` : ''}`, response.status);
      }
      return await read(response, path);
    } catch (error) {
      if (error instanceof EsploraError) throw error;
      if (signal.aborted) throw new EsploraError('timeout', path, `no answer within ${this.timeoutMs} ms`, null, { cause: error });
      throw new EsploraError('network', path, (error as Error).message, null, { cause: error });
    }
  }
}

function checkHeight(height: number): void {
  if (!Number.isSafeInteger(height) || height < 0) throw new RangeError(`a block height is a non-negative integer, got ${height}`);
}

function checkHash(hash: string): string {
  if (typeof hash !== 'string' || !HASH.test(hash.toLowerCase())) throw new RangeError(`a Bitcoin hash is 64 hex digits, got "${String(hash)}"`);
  return hash.toLowerCase();
}

function malformed(path: string, response: Response, what: string): EsploraError {
  return new EsploraError('malformed', path, what, response.status);
}

async function readHeight(response: Response, path: string): Promise<number> {
  const text = (await response.text()).trim();
  if (!HEIGHT.test(text)) throw malformed(path, response, `expected a block height, got "${text.slice(0, QUOTED)}"`);
  return Number(text);
}

async function readHash(response: Response, path: string): Promise<string> {
  const text = (await response.text()).trim().toLowerCase();
  if (!HASH.test(text)) throw malformed(path, response, `expected a block hash, got "${text.slice(0, QUOTED)}"`);
  return text;
}

async function readHex(response: Response, path: string): Promise<string> {
  const text = (await response.text()).trim().toLowerCase();
  if (!HEX.test(text)) throw malformed(path, response, `expected hex, got "${text.slice(0, QUOTED)}"`);
  return text;
}

async function readRawBlock(response: Response, path: string): Promise<Uint8Array> {
  const declared = Number(response.headers.get('content-length') ?? NaN);
  if (declared > MAX_RAW_BLOCK_BYTES) {
    await response.body?.cancel();
    throw malformed(path, response, `a raw block of ${declared} bytes is larger than any block`);
  }
  const bytes = new Uint8Array(await response.arrayBuffer());
  if (bytes.length > MAX_RAW_BLOCK_BYTES) throw malformed(path, response, `a raw block of ${bytes.length} bytes is larger than any block`);
  if (bytes.length < 81) throw malformed(path, response, `a raw block of ${bytes.length} bytes is shorter than a header and a transaction count`);
  return bytes;
}

async function readAddressTransactions(response: Response, path: string): Promise<EsploraAddressTransaction[]> {
  let body: unknown;
  try {
    body = await response.json();
  } catch {
    throw malformed(path, response, 'the body is not JSON');
  }
  if (!Array.isArray(body)) throw malformed(path, response, 'expected an array of transactions');
  return body.map((item: unknown) => {
    const tx = item as { txid?: unknown; status?: { confirmed?: unknown } | null; vout?: unknown } | null;
    if (tx === null || typeof tx !== 'object' || typeof tx.txid !== 'string' || !HASH.test(tx.txid) || typeof tx.status?.confirmed !== 'boolean' || !Array.isArray(tx.vout)) {
      throw malformed(path, response, 'expected transactions with txid, status.confirmed and vout');
    }
    const outputs = tx.vout.map((out: unknown) => {
      const o = out as { scriptpubkey_address?: unknown; value?: unknown } | null;
      const value = o?.value;
      if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) throw malformed(path, response, `an output of ${tx.txid as string} has no value in satoshis`);
      const address = o?.scriptpubkey_address;
      return { address: typeof address === 'string' ? address : null, value: BigInt(value) };
    });
    return { txid: tx.txid, confirmed: tx.status.confirmed, outputs };
  });
}

async function readBlock(response: Response, path: string): Promise<EsploraBlock> {
  let body: unknown;
  try {
    body = await response.json();
  } catch {
    throw malformed(path, response, 'the body is not JSON');
  }
  const block = body as Partial<Record<keyof EsploraBlock, unknown>> | null;
  const previous = block?.previousblockhash;
  if (
    block === null ||
    typeof block !== 'object' ||
    typeof block.id !== 'string' ||
    !HASH.test(block.id) ||
    typeof block.height !== 'number' ||
    !Number.isSafeInteger(block.height) ||
    !(previous === undefined || previous === null || (typeof previous === 'string' && HASH.test(previous)))
  ) {
    throw malformed(path, response, 'expected a block object with id, height and previousblockhash');
  }
  return block as unknown as EsploraBlock;
}
