import { randomUUID } from 'node:crypto';
import { accountsAppForSuite, Browser, PASSWORD, signUp } from '../accounts/support';

/**
 * Idempotency-Key with a dashboard session (spec §8 rules 5 and 6, issue #19 B17): kept per
 * business exactly as with a secret key — the same key with the same method, path and body
 * replays; another body, path or method gives 409 idempotency_key_reused; the business's secret
 * key and the session share the business's keys; another business the same person acts for has
 * keys of its own; a person's own routes (no business) keep keys per person.
 */
describe('Idempotency-Key with a dashboard session', () => {
  const app = accountsAppForSuite({ logs: false });

  const withKey = async (secret: string, path: string, body: unknown, key: string) => {
    const response = await fetch(`${app.api.base}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json', 'idempotency-key': key },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as { data: { id: string }; error: { code: string } }, replayed: response.headers.get('idempotent-replayed') };
  };

  it('replays the same request, refuses the key for another body or path, per business: shared with the secret key, apart from the person’s other business', async () => {
    const b = new Browser(app.api);
    const person = await signUp(app, b);
    const first = b.forBusiness(person.businessId);
    const key = randomUUID();
    const mug = { amount: 2500, currency: 'USD', description: 'Mug' };

    const created = await first.post('/payments', mug, { 'idempotency-key': key });
    expect(created.status).toBe(201);
    expect(created.headers.get('idempotent-replayed')).toBeNull();
    const replay = await first.post('/payments', mug, { 'idempotency-key': key });
    expect([replay.status, replay.headers.get('idempotent-replayed')]).toEqual([201, 'true']);
    expect(replay.body).toEqual(created.body);

    // another body, another path: 409 idempotency_key_reused, nothing done
    const otherBody = await first.post('/payments', { ...mug, amount: 2600 }, { 'idempotency-key': key });
    expect([otherBody.status, otherBody.body.error.code, otherBody.body.error.field]).toEqual([409, 'idempotency_key_reused', 'Idempotency-Key']);
    const otherPath = await first.post('/customers', { email: 'ann@customers.example' }, { 'idempotency-key': key });
    expect([otherPath.status, otherPath.body.error.code]).toEqual([409, 'idempotency_key_reused']);
    expect((await first.get('/payments')).body.data.map((p: { id: string }) => p.id)).toEqual([created.body.data.id]);
    expect((await first.get('/customers')).body.data).toEqual([]);

    // the business's secret key shares the business's keys with the session
    expect((await b.post('/sessions/current/step-up', { current_password: PASSWORD })).status).toBe(200);
    const secret = (await first.post('/api-keys', { type: 'secret', mode: 'test', name: 'Server' })).body.data.secret as string;
    const byKey = await withKey(secret, '/payments', mug, key);
    expect([byKey.status, byKey.replayed, byKey.body.data.id]).toEqual([201, 'true', created.body.data.id]);
    const byKeyOther = await withKey(secret, '/payments', { ...mug, description: 'Cup' }, key);
    expect([byKeyOther.status, byKeyOther.body.error.code]).toEqual([409, 'idempotency_key_reused']);
    // and the other way round: a key first used with the secret key is reused by the session
    const keyFirst = randomUUID();
    const viaSecret = await withKey(secret, '/payments', { ...mug, amount: 900 }, keyFirst);
    expect([viaSecret.status, viaSecret.replayed]).toEqual([201, null]);
    const viaSession = await first.post('/payments', { ...mug, amount: 900 }, { 'idempotency-key': keyFirst });
    expect([viaSession.status, viaSession.headers.get('idempotent-replayed'), viaSession.body.data.id]).toEqual([201, 'true', viaSecret.body.data.id]);
    expect((await first.post('/payments', mug, { 'idempotency-key': keyFirst })).body.error.code).toBe('idempotency_key_reused');

    // a second business of the same person: the same key is new there
    const opened = await b.post('/businesses', { name: 'Second Shop', simulated: true });
    expect(opened.status).toBe(201);
    const second = b.forBusiness(opened.body.data.id);
    const there = await second.post('/payments', mug, { 'idempotency-key': key });
    expect([there.status, there.headers.get('idempotent-replayed')]).toEqual([201, null]);
    expect(there.body.data.id).not.toBe(created.body.data.id);
    const otherThere = await second.post('/payments', { ...mug, amount: 2600 }, { 'idempotency-key': key });
    expect(otherThere.body.error.code).toBe('idempotency_key_reused');
    // each business replays its own answer
    expect((await second.post('/payments', mug, { 'idempotency-key': key })).body.data.id).toBe(there.body.data.id);
    expect((await first.post('/payments', mug, { 'idempotency-key': key })).body.data.id).toBe(created.body.data.id);
    expect((await second.get('/payments')).body.data.map((p: { id: string }) => p.id)).toEqual([there.body.data.id]);
  });

  it('keeps keys per person on the person’s own routes, apart from the businesses’ keys', async () => {
    const b = new Browser(app.api);
    const person = await signUp(app, b);
    const key = randomUUID();
    const paid = await b.forBusiness(person.businessId).post('/payments', { amount: 1000, currency: 'USD' }, { 'idempotency-key': key });
    expect(paid.status).toBe(201);
    const opened = await b.post('/businesses', { name: 'Kiosk', simulated: true }, { 'idempotency-key': key }); // not the business's key
    expect([opened.status, opened.headers.get('idempotent-replayed')]).toEqual([201, null]);
    const again = await b.post('/businesses', { name: 'Kiosk', simulated: true }, { 'idempotency-key': key });
    expect([again.status, again.headers.get('idempotent-replayed'), again.body.data.id]).toEqual([201, 'true', opened.body.data.id]);
    const other = await b.post('/businesses', { name: 'Kiosk 2', simulated: true }, { 'idempotency-key': key });
    expect([other.status, other.body.error.code]).toEqual([409, 'idempotency_key_reused']);
    expect((await b.get('/me')).body.data.businesses.map((x: { name: string }) => x.name)).toEqual(['Corner Shop', 'Kiosk']);

    // another person's same key on their own route is theirs
    const c = new Browser(app.api);
    await signUp(app, c);
    const theirs = await c.post('/businesses', { name: 'Kiosk', simulated: true }, { 'idempotency-key': key });
    expect([theirs.status, theirs.headers.get('idempotent-replayed')]).toEqual([201, null]);
    expect(theirs.body.data.id).not.toBe(opened.body.data.id);
  });
});
