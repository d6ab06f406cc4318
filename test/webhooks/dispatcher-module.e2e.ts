import { Webhook } from 'standardwebhooks';
import { eventually } from '../support/eventually';
import { businessWithKey, startApp } from '../support/fixtures';
import { startReceiver } from './support';

/**
 * Issue 5 "done when", end to end on the real app (ROLE=all: projections, payment timers and the
 * dispatcher in one process, on PostgreSQL): a subscriber registered on a simulated business
 * receives signed, verifiable deliveries for its payment's events, whose data is the payment as
 * GET /payments/{id} returns it.
 */
it('a subscriber receives signed payment.created and payment.succeeded deliveries for a real payment', async () => {
  const api = await startApp('postgres', { WEBHOOK_ALLOW_PRIVATE_URLS: 'true', TRUSTED_PROXIES: 'loopback' }, 'whmod');
  const rx = await startReceiver();
  try {
    const { client } = await businessWithKey(api, true);
    const hook = await client.post('/webhooks', { url: rx.url, event_types: ['payment.created', 'payment.succeeded'] });
    expect(hook.status).toBe(201);
    const secret: string = hook.body.data.secret;

    const payment = await client.createPayment({ metadata: { order: '42' } });
    const checkout = await client.openCheckout(payment);
    await client.markSent(checkout.id, 'exact');
    await client.advance(30);
    const final = await client.payment(payment.id);
    expect(final.status).toBe('succeeded');

    const requests = await rx.waitFor(2);
    const verifier = new Webhook(secret);
    type Delivered = { id: string; type: string; subject: { id: string }; data: { status: string; metadata: Record<string, string> } };
    // deliveries run concurrently (Standard Webhooks promises no order): match them by type
    const events = requests.map((r) => ({ event: verifier.verify(r.body, r.headers as Record<string, string>) as Delivered, headers: r.headers }));
    expect(events.map((e) => e.event.type).sort()).toEqual(['payment.created', 'payment.succeeded']);
    const created = events.find((e) => e.event.type === 'payment.created')!;
    const succeeded = events.find((e) => e.event.type === 'payment.succeeded')!;
    for (const e of events) expect(e.event.subject.id).toBe(payment.id);
    expect(created.event.data).toMatchObject({ status: 'pending', metadata: { order: '42' } });
    expect(succeeded.event.data).toEqual(final); // the payment as its endpoint returns it
    expect(succeeded.headers['webhook-id']).toBe(succeeded.event.id);

    // the delivery log shows them, succeeded, once the dispatcher has recorded the receiver's
    // answers (after the receiver has the requests: the log is written asynchronously)
    const deliveries = await eventually(
      () => client.get(`/webhooks/${hook.body.data.id}/deliveries`),
      (r) => r.body.data.length === 2 && r.body.data.every((d: { status: string }) => d.status === 'succeeded'),
      { what: 'both deliveries recorded as succeeded' },
    );
    expect(deliveries.body.data.map((d: { event_type: string; status: string }) => [d.event_type, d.status])).toEqual([
      ['payment.succeeded', 'succeeded'],
      ['payment.created', 'succeeded'],
    ]);
    const listed = await client.get(`/events?limit=100`);
    expect(listed.body.data.map((e: { type: string }) => e.type)).toEqual(expect.arrayContaining(['payment.created', 'payment.updated', 'payment.succeeded']));
  } finally {
    await api.close();
    await rx.close();
  }
});
