import type { Sql } from '@lib/database';
import { Page, businessFilters, PageRequest, toPage } from '@lib/http';
import { WebhookError } from '../domain/errors';
import type { ApiEvent } from './events.projector';
import { newestFirstPage } from './newest-first-page';
import { iso } from './views';

const EVENT_ID = /^evt_[0-9A-Za-z]{1,64}$/;

export interface EventFilters {
  type?: string;
  subject_id?: string;
}

/** The filters an event list's cursor is bound to, every key present. */
export function eventCursorFilters(filters: EventFilters): Record<string, string | null> {
  return { type: filters.type ?? null, subject_id: filters.subject_id ?? null };
}

/**
 * Reads of the `events` projection (GET /events, GET /events/{id}). `segments`: the first
 * segments of the types the caller may read (a restricted key), null for all.
 */
export class EventQueries {
  constructor(private readonly db: Sql) {}

  async list(businessId: string, filters: EventFilters, segments: string[] | null, page: PageRequest): Promise<Page<ApiEvent>> {
    const newest = newestFirstPage('seq', 5, page);
    const { rows } = await this.db.query<{ payload: ApiEvent; seq: string }>(
      `SELECT seq, payload::json AS payload FROM events
        WHERE business_id = $1
          AND ($2::text IS NULL OR type = $2)
          AND ($3::text IS NULL OR subject_id = $3)
          AND ($4::text[] IS NULL OR split_part(type, '.', 1) = ANY($4::text[]))
          ${newest.sql}`,
      [businessId, filters.type ?? null, filters.subject_id ?? null, segments, ...newest.params],
    );
    const seqs = new Map(rows.map((r) => [r.payload.id, r.seq]));
    return toPage(
      'events',
      businessFilters(businessId, eventCursorFilters(filters)),
      rows.map((r) => r.payload),
      page.limit,
      (e) => ({ created_at: iso(e.created_at), id: seqs.get(e.id)! }),
    );
  }

  async get(businessId: string, id: string, segments: string[] | null): Promise<ApiEvent> {
    const { rows } = EVENT_ID.test(id)
      ? await this.db.query<{ business_id: string; type: string; payload: ApiEvent }>(`SELECT business_id, type, payload::json AS payload FROM events WHERE id = $1`, [id], 'webhooks_event_get')
      : { rows: [] };
    const row = rows[0];
    if (!row || row.business_id !== businessId || (segments !== null && !segments.includes(row.type.split('.')[0]))) {
      throw new WebhookError('not_found', `No event ${id}.`);
    }
    return row.payload;
  }
}
