import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { SolanaRpcBlock } from '@lib/chains';

export interface RpcRequest {
  readonly method: string;
  readonly params: readonly unknown[];
}

/**
 * A Solana JSON-RPC node stand-in on node:http, serving blocks a test recorded (LocalLedger's,
 * from litesvm) the way agave's RPC answers: getGenesisHash, getSlot, getBlocks (the slots
 * with a block in a range, up to the tip), getBlock (`transactionDetails` 'full' or 'none';
 * -32004 "Block not available" above the tip, -32007 "was skipped" for a slot without a block
 * below it; error texts as agave writes them), getTransaction (a transaction of a served block at
 * or below the tip, or null), isBlockhashValid when a test gives `blockhashValid`, and sendTransaction when a test gives `onSendTransaction` (the
 * wire bytes in; the signature out, or a JSON-RPC error thrown as `{code, message}`). Every
 * request is kept for the test to check.
 */
export class SolanaRpcStandIn {
  readonly blocks = new Map<number, SolanaRpcBlock>();
  readonly requests: RpcRequest[] = [];
  genesisHash = '5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d';
  /** The highest confirmed slot (getSlot); blocks above it are not served yet. */
  tip = 0;
  /** The highest finalized slot (getSlot with commitment 'finalized'). */
  finalized = 0;
  /** Answer a method with this JSON-RPC error instead. */
  readonly failures = new Map<string, { code: number; message: string }>();
  /** Answer every request with this HTTP status and no JSON-RPC body. */
  httpStatus: number | null = null;
  /** Slots getBlock answers "not available" for although getBlocks lists them (a lagging node behind a load balancer). */
  readonly lagging = new Set<number>();
  /** Never answer (a node that hangs). */
  hang = false;
  /** isBlockhashValid: whether the node still takes transactions signed on this blockhash (none given: Method not found). */
  blockhashValid: ((blockhash: string) => boolean) | null = null;
  /** sendTransaction (base64 wire bytes): resolves the signature, or throws `{code, message}` as the node's error. */
  onSendTransaction: ((wire: Uint8Array) => string | Promise<string>) | null = null;

  private server: Server | null = null;
  url = '';

  async start(): Promise<string> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this.url;
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { jsonrpc: string; id: number; method: string; params?: unknown[] };
    this.requests.push({ method: body.method, params: body.params ?? [] });
    if (this.hang) return;
    if (this.httpStatus !== null) {
      res.writeHead(this.httpStatus, { 'content-type': 'text/plain' }).end('Service Unavailable');
      return;
    }
    const answer = (payload: { result: unknown } | { error: { code: number; message: string } }) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', ...payload, id: body.id }));
    const failure = this.failures.get(body.method);
    if (failure) return void answer({ error: failure });
    const params = body.params ?? [];
    switch (body.method) {
      case 'getGenesisHash':
        return void answer({ result: this.genesisHash });
      case 'getSlot':
        return void answer({ result: (params[0] as { commitment?: string } | undefined)?.commitment === 'finalized' ? this.finalized : this.tip });
      case 'getBlocks': {
        const [start, end] = params as [number, number];
        const slots = [...this.blocks.keys()].filter((slot) => slot >= start && slot <= Math.min(end, this.tip)).sort((a, b) => a - b);
        return void answer({ result: slots });
      }
      case 'getBlock': {
        const [slot, config] = params as [number, { transactionDetails?: string }];
        const block = this.blocks.get(slot);
        if (slot > this.tip || this.lagging.has(slot)) return void answer({ error: { code: -32004, message: `Block not available for slot ${slot}` } });
        if (!block) return void answer({ error: { code: -32007, message: `Slot ${slot} was skipped, or missing due to ledger jump to recent snapshot` } });
        if (config?.transactionDetails === 'none') {
          const { transactions: _omitted, ...header } = block;
          return void answer({ result: header });
        }
        return void answer({ result: block });
      }
      case 'getTransaction': {
        const [signature] = params as [string];
        for (const [slot, block] of this.blocks) {
          if (slot > this.tip) continue;
          const found = (block.transactions ?? []).find((t) => t.transaction.signatures[0] === signature);
          if (found) return void answer({ result: { slot, blockTime: block.blockTime, ...found } });
        }
        return void answer({ result: null });
      }
      case 'isBlockhashValid': {
        if (!this.blockhashValid) break;
        const [blockhash] = params as [string];
        return void answer({ result: { context: { slot: this.tip }, value: this.blockhashValid(blockhash) } });
      }
      case 'sendTransaction': {
        if (!this.onSendTransaction) break;
        const [wire] = params as [string];
        try {
          return void answer({ result: await this.onSendTransaction(Buffer.from(wire, 'base64')) });
        } catch (error) {
          const { code, message } = error as { code?: number; message?: string };
          return void answer({ error: { code: code ?? -32002, message: message ?? String(error) } });
        }
      }
    }
    answer({ error: { code: -32601, message: 'Method not found' } });
  }
}
