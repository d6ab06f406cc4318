import type { RecordedEvent } from '@lib/eventstore';
import { ApiEventSource, EventSourceLink, eventsProjector } from '../../libs/webhooks/src';
import { STORE_KINDS, storePerSuite } from '../support/fixtures';

/**
 * The events projection's links (ApiEventSource.link, table event_source_links): a stream whose
 * later events do not name the view they move (a payment's and its customer's) folds into the view
 * its link names, with the link before and after the event handed to reduce. A toy source: an
 * order's events move the total of the box its link names; `Moved` re-links it, `Closed` drops the
 * link; no event names a box itself (viewKey null), so every view is found through a link — made
 * in the same batch or stored by an earlier one. Every batch size gives the same API events, views
 * and links, on both stores.
 */

interface Box {
  box: string;
  total: number;
  /** What reduce saw of the link: the order's item count before and after. */
  seen: [number | null, number | null][];
}

const toySource: ApiEventSource<Box, { items: number }> = {
  name: 'toy_links',
  types: ['business.updated'],
  accepts: (event) => event.stream.startsWith('toyorder-'),
  viewKey: () => null,
  link(link: EventSourceLink<{ items: number }> | null, event: RecordedEvent): EventSourceLink<{ items: number }> | null {
    const d = event.data as { box?: string; amount?: number };
    switch (event.type) {
      case 'Opened':
        return { view_key: `box-${d.box}`, data: { items: 0 } };
      case 'Item':
        return link && { ...link, data: { items: link.data.items + 1 } };
      case 'Moved':
        return link && { ...link, view_key: `box-${d.box}` };
      case 'Closed':
        return null;
      default:
        return link;
    }
  },
  reduce(view: Box | null, event: RecordedEvent, link): Box | null {
    const box = view ?? { box: link!.after!.view_key, total: 0, seen: [] };
    const amount = event.type === 'Item' ? (event.data as { amount: number }).amount : 0;
    return { ...box, total: box.total + amount, seen: [...box.seen, [link?.before?.data.items ?? null, link?.after?.data.items ?? null]] };
  },
  map: (event, { after }) => (after && event.type === 'Item' ? [{ type: 'business.updated', subject: { kind: 'business', id: after.box }, data: { box: after.box, total: after.total }, business_id: 'biz_toy', mode: 'test' }] : []),
};

const steps: [string, string, Record<string, unknown>][] = [
  ['toyorder-o1', 'Opened', { box: 'a' }],
  ['toyorder-o1', 'Item', { amount: 5 }],
  ['toyorder-o2', 'Opened', { box: 'a' }],
  ['toyorder-o2', 'Item', { amount: 7 }],
  ['toyorder-o1', 'Item', { amount: 1 }],
  ['toyorder-o1', 'Moved', { box: 'b' }],
  ['toyorder-o1', 'Item', { amount: 100 }],
  ['toyorder-o2', 'Closed', {}],
  ['toyorder-o2', 'Item', { amount: 1000 }], // no link any more: no view, no event
  ['toyorder-o1', 'Item', { amount: 10 }],
];

const log: RecordedEvent[] = steps.map(([stream, type, data], n) => ({
  id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
  type,
  data,
  metadata: {},
  stream,
  revision: n,
  position: { commit: BigInt(n + 1), prepare: BigInt(n + 1) },
  recordedAt: new Date(Date.UTC(2030, 0, 1, 0, 0, n)),
}));

describe.each(STORE_KINDS)('event source links on %s', (kind) => {
  const opened = storePerSuite(kind, 'links');
  const events = eventsProjector([toySource]);
  beforeAll(() => opened.db.exec(events.schema));

  it('folds a stream’s later events into the view its link names, for every batch size', async () => {
    const results: unknown[] = [];
    for (let size = 1; size <= log.length; size++) {
      await opened.db.exec('DELETE FROM events; DELETE FROM event_source_views; DELETE FROM event_source_links;');
      for (let i = 0; i < log.length; i += size) await opened.db.transaction((tx) => events.handle(log.slice(i, i + size), tx));
      const sent = (await opened.db.query<{ payload: string }>('SELECT payload FROM events ORDER BY seq')).rows.map((r) => JSON.parse(r.payload).data);
      const views = (await opened.db.query<{ view_key: string; view: string }>('SELECT view_key, view FROM event_source_views ORDER BY view_key')).rows.map((r) => [r.view_key, JSON.parse(r.view)]);
      const links = (await opened.db.query<{ stream: string; view_key: string; data: string }>('SELECT stream, view_key, data FROM event_source_links ORDER BY stream')).rows.map((r) => [r.stream, r.view_key, JSON.parse(r.data)]);
      results.push({ size, sent, views, links });
    }
    const expected = {
      sent: [
        { box: 'box-a', total: 5 },
        { box: 'box-a', total: 12 },
        { box: 'box-a', total: 13 },
        { box: 'box-b', total: 100 },
        { box: 'box-b', total: 110 },
      ],
      views: [
        ['box-a', { box: 'box-a', total: 13, seen: [[null, 0], [0, 1], [null, 0], [0, 1], [1, 2], [1, null]] }], // Closed folds into the box it leaves
        ['box-b', { box: 'box-b', total: 110, seen: [[2, 2], [2, 3], [3, 4]] }],
      ],
      links: [['toyorder-o1', 'box-b', { items: 4 }]],
    };
    expect(results).toEqual(log.map((_, i) => ({ size: i + 1, ...expected })));
  });
});
