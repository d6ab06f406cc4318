import type { RecordedEvent } from '@lib/eventstore';
import { LINK_STREAM, LinkRow, asLinkEvent, fieldsOf, linkView } from '@lib/links';
import { eventTime } from '@lib/payments';
import { ApiEventDraft, ApiEventSource } from './event-source';

/** A link as the source folds it: the row GET /links/{id} renders (times as ISO strings). */
type LinkEventView = Omit<LinkRow, 'created_at' | 'updated_at'> & { created_at: string; updated_at: string };

/**
 * API events of payment links (decision 0030): `link.created` (POST /links) and `link.updated`
 * when the link object changes — PATCH, archive, restore, disabled by the service. A payment the
 * link makes moves `payments_count` without an event (its own `payment.created` tells it); a
 * deletion has no event type in the catalogue. `data` is the link object as GET /links/{id}
 * returns it (its url from CHECKOUT_BASE_URL, as payments').
 */
export function linkEventSource(options: { checkoutBaseUrl: string }): ApiEventSource<LinkEventView> {
  return {
    name: 'link',
    types: ['link.created', 'link.updated'],
    accepts: (event) => LINK_STREAM.owns(event.stream),
    reduce(view: LinkEventView | null, event: RecordedEvent): LinkEventView | null {
      const link = asLinkEvent(event);
      if (!link) return view;
      const at = eventTime(event);
      switch (link.type) {
        case 'LinkCreated': {
          const d = link.data;
          return { id: d.link_id, business_id: d.business_id, mode: d.mode, code: d.code, status: 'active', ...fieldsOf(d), payments_count: 0, created_at: at, updated_at: at };
        }
        case 'LinkUpdated':
          return view && { ...view, ...fieldsOf(link.data), updated_at: at };
        case 'LinkArchived':
        case 'LinkRestored':
        case 'LinkDisabled':
          return view && { ...view, status: link.type === 'LinkArchived' ? 'archived' : link.type === 'LinkRestored' ? 'active' : 'disabled', updated_at: at };
        case 'LinkPaymentRecorded':
          return view && { ...view, payments_count: Number(view.payments_count) + 1 };
        case 'LinkDeleted':
          return null;
      }
    },
    map(event: RecordedEvent, { before, after }): ApiEventDraft[] {
      if (!after || event.type === 'LinkPaymentRecorded') return [];
      const draft = (type: string): ApiEventDraft => ({
        type,
        subject: { kind: 'link', id: after.id },
        data: linkView(after, options.checkoutBaseUrl) as unknown as Record<string, unknown>,
        business_id: after.business_id,
        mode: after.mode === 'live' ? 'live' : 'test',
        created_at: after.updated_at,
      });
      if (!before) return [draft('link.created')];
      return JSON.stringify(before) === JSON.stringify(after) ? [] : [draft('link.updated')];
    },
  };
}
