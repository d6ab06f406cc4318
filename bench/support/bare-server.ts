/**
 * The baselines of `npm run bench:api`, in a process of their own like the app they are compared
 * with: a plain node:http server (no framework, no validation, no auth) on the same kind of store
 * through the same code as the app (libs/database: `connectPostgres` with the app's pool settings,
 * or `openEmbedded`):
 *   - POST /insert: reads the JSON body and INSERTs one row, a jsonb document the size of a
 *     payment (a payment object the app served, with the body's fields), answers 201 with it;
 *   - GET /page: a fixed JSON, a real 25-payment page the app served, stringified per request as
 *     any JSON route does.
 * Started by api.bench.ts with fork(): it tells its port over IPC.
 *
 * Env: DATABASE_URL (postgres; the app's database) or BARE_DATA_DIR (embedded: a directory of its
 * own, since one process owns an embedded data directory), BENCH_PAGE_FILE.
 */
import { readFileSync } from 'node:fs';
import { IncomingMessage, ServerResponse, createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import { Database, connectPostgres, openEmbedded } from '../../libs/database/src';

async function main(): Promise<void> {
  const page = JSON.parse(readFileSync(process.env.BENCH_PAGE_FILE!, 'utf8')) as { data: Record<string, unknown>[] };
  const template = page.data[0];
  const db: Database = process.env.DATABASE_URL ? connectPostgres(process.env.DATABASE_URL) : await openEmbedded(process.env.BARE_DATA_DIR!);
  await db.exec(`CREATE TABLE IF NOT EXISTS bench_scratch (id bigserial PRIMARY KEY, created_at timestamptz NOT NULL DEFAULT now(), body jsonb NOT NULL)`);

  const send = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
    res.end(JSON.stringify(body));
  };
  const insert = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const input = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
    const doc = { ...template, amount: input.amount, currency: input.currency, description: input.description, metadata: input.metadata ?? {} };
    const { rows } = await db.query<{ id: string }>(`INSERT INTO bench_scratch (body) VALUES ($1) RETURNING id::text`, [JSON.stringify(doc)], 'bench_insert');
    send(res, 201, { data: { ...doc, id: `scratch_${rows[0].id}` } });
  };
  const server = createServer((req, res) => {
    if (req.method === 'POST' && req.url === '/insert') {
      insert(req, res).catch((error: unknown) => send(res, 500, { error: String(error) }));
    } else if (req.method === 'GET' && req.url === '/page') {
      send(res, 200, page);
    } else {
      send(res, 404, { error: 'not found' });
    }
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  process.send!({ port: (server.address() as AddressInfo).port });
  process.on('disconnect', () => {
    server.closeAllConnections();
    server.close(() => void db.close().finally(() => process.exit(0)));
  });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
