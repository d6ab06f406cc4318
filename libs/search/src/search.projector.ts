import type { Sql } from '@lib/database';
import type { RecordedEvent } from '@lib/eventstore';
import type { Projector } from '@lib/projections';
import { DocumentParts, SearchKind, indexedColumns, ownColumns } from './terms';

/** One object as the search index knows it (a `search_documents` row without its computed columns). */
export interface SearchDocument {
  kind: SearchKind;
  object_id: string;
  business_id: string;
  /** The object's `created_at` (newest first within a rank and kind). */
  created_at: string;
  /** A payment's customer (so a change to the customer reaches its payments' documents). */
  customer_id: string | null;
  parts: DocumentParts;
}

/** The documents one batch works on: loaded once, changed in memory, written back once. */
export interface SearchDocuments {
  get(kind: SearchKind, id: string): SearchDocument | undefined;
  put(document: SearchDocument): void;
  /** The object is gone (a deleted link): its document leaves the index. */
  remove(kind: SearchKind, id: string): void;
  /** The payment documents naming this customer (loaded when a source asked for them in `keys`). */
  paymentsOf(customerId: string): SearchDocument[];
}

/**
 * What feeds the index: one per capability (decision 0031). `keys` says which documents an event
 * needs (loaded before the batch is applied), `apply` changes them; both pure and deterministic
 * (the event's data, metadata and recordedAt only), so a rebuild gives the same index.
 */
export interface SearchSource {
  readonly name: string;
  keys(event: RecordedEvent): { documents?: [SearchKind, string][]; paymentsOfCustomers?: string[] } | null;
  apply(event: RecordedEvent, documents: SearchDocuments): void;
}

export const SEARCH_PROJECTION = 'search';

/**
 * The `search` projection (decision 0031): `search_documents`, one row per payment, customer (and,
 * once their source is added, link) of every business, with:
 * - `parts` (jsonb): what its sources recorded (DocumentParts);
 * - `exact` (text[]): ids, codes, e-mails, hashes and addresses, folded — the first rank;
 * - `amounts` (text[]): the forms its amount is typed in;
 * - `text`: every searchable value, folded, one per line — word prefix (regex) and anywhere (LIKE),
 *   both served by a trigram index (pg_trgm, on PostgreSQL and in the embedded store alike);
 * - `own_exact`, `own_text` (payments only, else null): `exact` and `text` without the customer's
 *   name and e-mails (`ownColumns`), what a key without customers read access matches payments on —
 *   checked on the rows the indexed columns found, so they need no index of their own.
 * The GIN indexes write through (fastupdate off): a pending list of recent rows, scanned by every
 * query until a vacuum empties it, made searches several times slower right after many writes
 * (measured: bench/search.bench.ts, decision 0031).
 */
export function searchProjector(sources: readonly SearchSource[]): Projector {
  return {
    name: SEARCH_PROJECTION,
    tables: ['search_documents'],
    schema: `
      CREATE TABLE IF NOT EXISTS search_documents (
        kind        text        NOT NULL,
        object_id   text        NOT NULL,
        business_id text        NOT NULL,
        created_at  timestamptz NOT NULL,
        customer_id text,
        parts       jsonb       NOT NULL,
        exact       text[]      NOT NULL,
        amounts     text[]      NOT NULL,
        text        text        NOT NULL,
        PRIMARY KEY (kind, object_id)
      );
      ALTER TABLE search_documents ADD COLUMN IF NOT EXISTS own_exact text[];
      ALTER TABLE search_documents ADD COLUMN IF NOT EXISTS own_text text;
      CREATE INDEX IF NOT EXISTS search_documents_business ON search_documents (business_id, kind, created_at DESC, object_id DESC);
      CREATE INDEX IF NOT EXISTS search_documents_customer ON search_documents (customer_id) WHERE customer_id IS NOT NULL;
      CREATE INDEX IF NOT EXISTS search_documents_exact ON search_documents USING gin (exact) WITH (fastupdate = off);
      CREATE INDEX IF NOT EXISTS search_documents_amounts ON search_documents USING gin (amounts) WITH (fastupdate = off);
      CREATE INDEX IF NOT EXISTS search_documents_text ON search_documents USING gin (text public.gin_trgm_ops) WITH (fastupdate = off);
    `,
    async handle(events: RecordedEvent[], tx: Sql): Promise<void> {
      const wanted = new Set<string>();
      const customers = new Set<string>();
      for (const event of events) {
        for (const source of sources) {
          const keys = source.keys(event);
          for (const [kind, id] of keys?.documents ?? []) wanted.add(key(kind, id));
          for (const id of keys?.paymentsOfCustomers ?? []) customers.add(id);
        }
      }
      if (wanted.size === 0 && customers.size === 0) return;
      const loaded = new Map<string, SearchDocument>();
      const pairs = [...wanted].map((k) => k.split('\u0000'));
      const { rows } = await tx.query<SearchDocument & { created_at: Date | string }>(
        `SELECT kind, object_id, business_id, created_at, customer_id, parts FROM search_documents
         WHERE (kind, object_id) IN (SELECT * FROM unnest($1::text[], $2::text[]))
            OR (kind = 'payment' AND customer_id = ANY($3::text[]))`,
        [pairs.map((p) => p[0]), pairs.map((p) => p[1]), [...customers]],
      );
      for (const row of rows) loaded.set(key(row.kind, row.object_id), { ...row, created_at: new Date(row.created_at).toISOString() });
      const changed = new Set<string>();
      const removed = new Set<string>();
      const documents: SearchDocuments = {
        get: (kind, id) => loaded.get(key(kind, id)),
        put: (document) => {
          loaded.set(key(document.kind, document.object_id), document);
          changed.add(key(document.kind, document.object_id));
          removed.delete(key(document.kind, document.object_id));
        },
        remove: (kind, id) => {
          loaded.delete(key(kind, id));
          changed.delete(key(kind, id));
          removed.add(key(kind, id));
        },
        paymentsOf: (customerId) => [...loaded.values()].filter((d) => d.kind === 'payment' && d.customer_id === customerId),
      };
      for (const event of events) for (const source of sources) source.apply(event, documents);
      if (removed.size > 0) {
        const gone = [...removed].map((k) => k.split('\u0000'));
        await tx.query(`DELETE FROM search_documents WHERE (kind, object_id) IN (SELECT * FROM unnest($1::text[], $2::text[]))`, [gone.map((p) => p[0]), gone.map((p) => p[1])]);
      }
      if (changed.size === 0) return;
      const out = [...changed].map((k) => {
        const d = loaded.get(k)!;
        const own = d.kind === 'payment' ? ownColumns(d.parts) : null;
        return { ...d, ...indexedColumns(d.parts), own_exact: own?.exact ?? null, own_text: own?.text ?? null };
      });
      await tx.query(
        `INSERT INTO search_documents (kind, object_id, business_id, created_at, customer_id, parts, exact, amounts, text, own_exact, own_text)
         SELECT kind, object_id, business_id, created_at, customer_id, parts, exact, amounts, text, own_exact, own_text FROM jsonb_populate_recordset(NULL::search_documents, $1::jsonb)
         ON CONFLICT (kind, object_id) DO UPDATE SET business_id = EXCLUDED.business_id, created_at = EXCLUDED.created_at, customer_id = EXCLUDED.customer_id,
           parts = EXCLUDED.parts, exact = EXCLUDED.exact, amounts = EXCLUDED.amounts, text = EXCLUDED.text, own_exact = EXCLUDED.own_exact, own_text = EXCLUDED.own_text`,
        [JSON.stringify(out)],
      );
    },
  };
}

const key = (kind: string, id: string): string => `${kind}\u0000${id}`;
