import { randomUUID } from 'node:crypto';
import { formatPosition } from '@lib/eventstore';
import { rebuildProjection, verifyProjection } from '@lib/projections';
import {
  ApiEventSource,
  apiEventId,
  businessEventSource,
  deliveryId,
  eventsProjector,
  webhookEndpointsProjector,
} from '../../libs/webhooks/src';
import { STORE_KINDS } from '../support/fixtures';
import { TEST_SOURCES, appendPayment, testPaymentSource, webhookStorePerSuite } from './support';

interface DeliveryLine {
  id: string;
  webhook_id: string;
  event_id: string;
  event_type: string;
}

describe.each(STORE_KINDS)('events projection and outbox on %s (issue 5 points 2 and 3)', (kind) => {
  const events = eventsProjector(TEST_SOURCES);
  const suite = webhookStorePerSuite(kind, 'whout', [webhookEndpointsProjector, events], { allowPrivateUrls: false, runner: { batchSize: 7 } });
  const deliveries = async (businessId: string) =>
    (
      await suite.db.query<DeliveryLine>(`SELECT id, webhook_id, event_id, event_type FROM webhook_deliveries WHERE business_id = $1 ORDER BY sort_key`, [businessId])
    ).rows;
  const eventRows = async (businessId: string) =>
    (await suite.db.query<{ id: string; type: string; source_event_id: string }>(`SELECT id, type, source_event_id FROM events WHERE business_id = $1 ORDER BY seq`, [businessId])).rows;
  const pay = (businessId: string, paymentId: string, ...statuses: string[]) =>
    appendPayment(suite.store, paymentId, [
      ...(statuses[0] === 'new' ? [{ type: 'TestPaymentCreated', data: { payment_id: paymentId, business_id: businessId, mode: 'test', amount: 500 } }] : []),
      ...statuses.filter((s) => s !== 'new').map((status) => ({ type: 'TestPaymentStatusChanged', data: { status } })),
    ]);
  const hook = (businessId: string, eventTypes: string[], extra: Record<string, unknown> = {}) =>
    suite.endpoints.create(businessId, { url: 'https://hooks.example.com/in', event_types: eventTypes, ...extra });


  it('gives one delivery per (event, subscribed enabled endpoint) of the event’s business, with ids derived from the log', async () => {
    const shop = (await suite.businesses.createBusiness({ name: 'Shop', simulated: true })).business.id;
    const other = (await suite.businesses.createBusiness({ name: 'Other', simulated: true })).business.id;
    const succeeded = await hook(shop, ['payment.succeeded']);
    const all = await hook(shop, ['*']);
    await hook(shop, ['payment.succeeded'], { enabled: false });
    await hook(shop, ['payment.failed']);
    await hook(other, ['*']);
    await pay(shop, 'pmt_one', 'new', 'succeeded');
    await suite.settle();

    const rows = await eventRows(shop);
    expect(rows.map((r) => r.type)).toEqual(['business.created', 'payment.created', 'payment.succeeded']);
    for (const row of rows) expect(row.id).toBe(apiEventId(row.source_event_id, row.type));
    const [, created, paid] = rows;
    expect(await deliveries(shop)).toEqual([
      { id: deliveryId(created.id, all.id), webhook_id: all.id, event_id: created.id, event_type: 'payment.created' },
      // one event, two endpoints: sorted by endpoint id
      ...[succeeded.id, all.id].sort().map((webhook) => ({ id: deliveryId(paid.id, webhook), webhook_id: webhook, event_id: paid.id, event_type: 'payment.succeeded' })),
    ]);
    expect(await deliveries(other)).toEqual([]);
  });

  it('decides who gets an event by the subscriptions at that point of the log', async () => {
    const shop = (await suite.businesses.createBusiness({ name: 'Shop', simulated: true })).business.id;
    await pay(shop, 'pmt_early', 'new'); // before any endpoint: no delivery
    const endpoint = await hook(shop, ['payment.created', 'payment.failed']);
    await pay(shop, 'pmt_a', 'new');
    await suite.endpoints.update(shop, endpoint.id, { event_types: ['payment.failed'] });
    await pay(shop, 'pmt_b', 'new'); // no longer subscribed
    await suite.endpoints.update(shop, endpoint.id, { enabled: false });
    await pay(shop, 'pmt_b', 'failed'); // disabled
    await suite.endpoints.update(shop, endpoint.id, { enabled: true });
    await pay(shop, 'pmt_c', 'new', 'failed'); // only the failure
    await suite.endpoints.delete(shop, endpoint.id);
    await pay(shop, 'pmt_d', 'new', 'failed'); // deleted
    await suite.settle();
    const got = (await deliveries(shop)).map((d) => d.event_type);
    expect(got).toEqual(['payment.created', 'payment.failed']);
    const events = await eventRows(shop);
    expect(events.filter((e) => e.type !== 'business.created')).toHaveLength(8);
  });

  it('creates nothing twice across a restart, and delivers what comes after it once', async () => {
    const shop = (await suite.businesses.createBusiness({ name: 'Shop', simulated: true })).business.id;
    await hook(shop, ['*']);
    await pay(shop, 'pmt_r1', 'new', 'succeeded');
    await suite.settle();
    const before = await deliveries(shop);
    expect(before).toHaveLength(2);
    await suite.runner.stop();
    await pay(shop, 'pmt_r2', 'new'); // while stopped
    await suite.startRunner();
    await suite.settle();
    const after = await deliveries(shop);
    expect(after).toHaveLength(3);
    expect(after.slice(0, 2)).toEqual(before);
  });

  it('a rebuild replays the same events with the same ids and sends nothing again (not even what a fixed source now gives)', async () => {
    const shop = (await suite.businesses.createBusiness({ name: 'Shop', simulated: true })).business.id;
    await hook(shop, ['*']);
    await pay(shop, 'pmt_rb', 'new', 'underpaid', 'succeeded');
    await suite.settle();
    const { rows: allEventsBefore } = await suite.db.query<{ id: string }>(`SELECT id FROM events ORDER BY id`);
    const { rows: allDeliveriesBefore } = await suite.db.query<{ id: string; status: string }>(`SELECT id, status FROM webhook_deliveries ORDER BY id`);
    // a delivery that went out already: the rebuild must not reset it
    await suite.db.query(`UPDATE webhook_deliveries SET status = 'succeeded', next_retry_at = NULL WHERE id = $1`, [allDeliveriesBefore[0].id]);
    const { rows: horizonBefore } = await suite.db.query<{ position: string }>(`SELECT position FROM webhook_outbox_horizon WHERE name = 'events'`);
    expect(horizonBefore[0].position).toBe(formatPosition((await suite.store.headPosition())!));

    await suite.runner.stop();
    const rebuilt = await rebuildProjection(suite.store, suite.db, events);
    expect(rebuilt.events).toBeGreaterThan(0);
    const { rows: allEventsAfter } = await suite.db.query<{ id: string }>(`SELECT id FROM events ORDER BY id`);
    expect(allEventsAfter).toEqual(allEventsBefore);
    const { rows: allDeliveriesAfter } = await suite.db.query<{ id: string; status: string }>(`SELECT id, status FROM webhook_deliveries ORDER BY id`);
    expect(allDeliveriesAfter.map((d) => d.id)).toEqual(allDeliveriesBefore.map((d) => d.id));
    expect(allDeliveriesAfter.find((d) => d.id === allDeliveriesBefore[0].id)!.status).toBe('succeeded');

    // a source fixed to give one more event type for old payments: the events table shows it, no delivery goes out for the past
    const fixed: ApiEventSource = {
      ...(testPaymentSource as ApiEventSource),
      name: 'test_payment',
      map: (event, view) => [
        ...(testPaymentSource as ApiEventSource).map(event, view),
        ...(event.type === 'TestPaymentCreated' ? [{ ...(testPaymentSource as ApiEventSource).map(event, view)[0], type: 'payment.updated' }] : []),
      ],
    };
    const fixedEvents = eventsProjector([businessEventSource, fixed]);
    await rebuildProjection(suite.store, suite.db, fixedEvents);
    const { rows: withFix } = await suite.db.query<{ n: string }>(`SELECT count(*)::text AS n FROM events WHERE type = 'payment.updated'`);
    expect(Number(withFix[0].n)).toBeGreaterThan(0);
    const { rows: deliveriesWithFix } = await suite.db.query<{ id: string }>(`SELECT id FROM webhook_deliveries ORDER BY id`);
    expect(deliveriesWithFix.map((d) => d.id)).toEqual(allDeliveriesBefore.map((d) => d.id));

    // back to the registered source; new events are delivered again
    await rebuildProjection(suite.store, suite.db, events);
    await suite.startRunner();
    await pay(shop, 'pmt_rb2', 'new');
    await suite.settle();
    expect((await deliveries(shop)).map((d) => d.event_type)).toEqual(['payment.created', 'payment.underpaid', 'payment.succeeded', 'payment.created']);
  });

  it('verifies against a fresh replay without touching the outbox', async () => {
    const shop = (await suite.businesses.createBusiness({ name: 'Shop', simulated: true })).business.id;
    await hook(shop, ['*']);
    await pay(shop, 'pmt_v', 'new', 'failed');
    await suite.settle();
    const { rows: before } = await suite.db.query<{ n: string }>(`SELECT count(*)::text AS n FROM webhook_deliveries`);
    const { rows: horizon } = await suite.db.query<{ position: string; updated_at: Date }>(`SELECT position, updated_at FROM webhook_outbox_horizon`);
    const verified = await verifyProjection(suite.store, suite.db, events);
    expect(verified.differences).toEqual([]);
    const endpointsVerified = await verifyProjection(suite.store, suite.db, webhookEndpointsProjector);
    expect(endpointsVerified.differences).toEqual([]);
    const { rows: after } = await suite.db.query<{ n: string }>(`SELECT count(*)::text AS n FROM webhook_deliveries`);
    expect(after).toEqual(before);
    expect((await suite.db.query(`SELECT position, updated_at FROM webhook_outbox_horizon`)).rows).toEqual(horizon);
  });

  it('folds events of other streams into a view when the source says so (viewKey)', async () => {
    const shop = (await suite.businesses.createBusiness({ name: 'Shop', simulated: true })).business.id;
    await pay(shop, 'pmt_vk', 'new');
    await suite.store.append('testchk-chk_vk', [{ id: randomUUID(), type: 'TestCheckoutOpened', data: { payment_id: 'pmt_vk', address: '0xabc' } }], 'any');
    await pay(shop, 'pmt_vk', 'succeeded');
    await suite.settle();
    const { rows } = await suite.db.query<{ type: string; payload: string }>(`SELECT type, payload FROM events WHERE subject_id = 'pmt_vk' ORDER BY seq`);
    expect(rows.map((r) => [r.type, JSON.parse(r.payload).data.address ?? null])).toEqual([
      ['payment.created', null],
      ['payment.updated', '0xabc'],
      ['payment.succeeded', '0xabc'],
    ]);
    // every view this test made ends with "_vk"; generated ids never hold "_" after their prefix (a LIKE '%vk' also matched a business whose random id ended in "vk")
    const { rows: views } = await suite.db.query<{ view_key: string }>(`SELECT view_key FROM event_source_views WHERE right(view_key, 3) = '_vk'`);
    expect(views.map((v) => v.view_key)).toEqual(['testpay-pmt_vk']);
  });

  it('refuses a source that would emit an undocumented type', () => {
    expect(() => eventsProjector([{ ...businessEventSource, name: 'x', types: ['business.exploded'] }])).toThrow(/not in EVENT_TYPES/);
    expect(() => eventsProjector([businessEventSource, businessEventSource])).toThrow(/two event sources/);
  });
});
