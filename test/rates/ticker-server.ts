import { IncomingMessage, Server, ServerResponse, createServer } from 'node:http';
import { AddressInfo } from 'node:net';

/**
 * A local stand-in for Coinbase Exchange's public ticker (decision 0020), on a real socket:
 * `GET /products/{product}/ticker` answers in the documented shape —
 *
 *   200 {"ask":"…","bid":"…","volume":"…","trade_id":…,"price":"…","size":"…","time":"…","rfq_volume":"…"}
 *   404 {"message":"NotFound"}
 *
 * Each product is told what to answer: a fresh price (its `time` taken when it answers, minus
 * `ageMs`), a status with a body, or no answer for `delayMs`. Every request is counted per product.
 */
export type TickerBehaviour =
  | { kind: 'price'; price: string; ageMs?: number; time?: string }
  | { kind: 'status'; status: number; body: string; contentType?: string }
  | { kind: 'hang'; delayMs: number };

export interface TickerServer {
  url: string;
  /** What `product` answers from now on (unset products answer 404 NotFound). */
  set(product: string, behaviour: TickerBehaviour): void;
  /** Requests received for `product` (or in all). */
  requests(product?: string): number;
  /** The `time` (ms) of the last price served for `product`. */
  lastPriceTime(product: string): number | null;
  close(): Promise<void>;
}

export async function startTickerServer(prefix = ''): Promise<TickerServer> {
  const behaviours = new Map<string, TickerBehaviour>();
  const counts = new Map<string, number>();
  const served = new Map<string, number>();
  let tradeId = 712_398_000;
  const server: Server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const match = /^\/products\/([^/]+)\/ticker$/.exec((request.url ?? '').slice(prefix.length));
    if (request.method !== 'GET' || !match) return send(response, 404, '{"message":"NotFound"}');
    const product = decodeURIComponent(match[1]);
    counts.set(product, (counts.get(product) ?? 0) + 1);
    const behaviour = behaviours.get(product) ?? { kind: 'status', status: 404, body: '{"message":"NotFound"}' };
    switch (behaviour.kind) {
      case 'price': {
        const timeMs = behaviour.time !== undefined ? Date.parse(behaviour.time) : Date.now() - (behaviour.ageMs ?? 0);
        served.set(product, timeMs);
        const time = behaviour.time ?? `${new Date(timeMs).toISOString().slice(0, 23)}254Z`; // microseconds, as the exchange writes them
        return send(response, 200, JSON.stringify({ ask: behaviour.price, bid: behaviour.price, volume: '8093.17126473', trade_id: ++tradeId, price: behaviour.price, size: '0.00120000', time, rfq_volume: '12.500000' }));
      }
      case 'status':
        return send(response, behaviour.status, behaviour.body, behaviour.contentType);
      case 'hang': {
        const timer = setTimeout(() => send(response, 200, '{}'), behaviour.delayMs);
        response.on('close', () => clearTimeout(timer));
        return;
      }
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${prefix}`,
    set: (product, behaviour) => void behaviours.set(product, behaviour),
    requests: (product) => (product === undefined ? [...counts.values()].reduce((a, b) => a + b, 0) : (counts.get(product) ?? 0)),
    lastPriceTime: (product) => served.get(product) ?? null,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function send(response: ServerResponse, status: number, body: string, contentType = 'application/json'): void {
  if (response.writableEnded || response.destroyed) return;
  response.writeHead(status, { 'content-type': contentType, 'content-length': Buffer.byteLength(body) });
  response.end(body);
}
