import { BUSINESS_STREAM, BusinessRow, BusinessRows, businessView } from '@lib/businesses';
import type { RecordedEvent } from '@lib/eventstore';
import { ApiEventDraft, ApiEventSource } from './event-source';

/**
 * API events of business streams (`business-<biz_id>`): `business.created` when the business
 * appears, `business.updated` whenever an event changes the business object as GET /business
 * shows it (a suspension or a reinstatement: `status` and `suspended_at`; a confirmed alert e-mail,
 * once business streams record one). Key events
 * change nothing the business object shows, so they give no event. `data` is the business object;
 * `mode` is `test` for a simulated business.
 */
export const businessEventSource: ApiEventSource<BusinessRow> = {
  name: 'business',
  types: ['business.created', 'business.updated'],
  accepts: (event) => BUSINESS_STREAM.owns(event.stream),
  reduce(view: BusinessRow | null, event: RecordedEvent): BusinessRow | null {
    const rows = new BusinessRows();
    const id = BUSINESS_STREAM.parse(event.stream)!;
    if (view) rows.businesses.set(id, { ...view });
    rows.apply(event);
    return rows.businesses.get(id) ?? view;
  },
  map(_event: RecordedEvent, { before, after }): ApiEventDraft[] {
    if (!after) return [];
    const object = businessView(after) as unknown as Record<string, unknown>;
    const draft = (type: string): ApiEventDraft => ({
      type,
      subject: { kind: 'business', id: after.id },
      data: object,
      business_id: after.id,
      mode: after.simulated ? 'test' : 'live',
    });
    if (!before) return [draft('business.created')];
    const shown = (row: BusinessRow) => JSON.stringify({ ...businessView(row), updated_at: null });
    return shown(before) === shown(after) ? [] : [draft('business.updated')];
  },
};
