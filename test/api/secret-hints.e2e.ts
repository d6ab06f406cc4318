import { BusinessService } from '@lib/businesses';
import { appPerSuite, businessWithKey, startTestApi } from '../support/fixtures';

/**
 * Masked secrets (spec §2 `secret_hint`: "a fixed prefix, dots, and its last characters"): what
 * follows the dots is the end of the secret exactly as it was returned once — padding included —
 * and what precedes them is its start. For API keys (secret, publishable, restricted: the
 * `redacted_key`) and webhook signing secrets (created and rotated).
 */
const MASK = /^([A-Za-z0-9_]+?)(?:…|•+)(.+)$/;

function expectHintOf(hint: string, secret: string): void {
  const parts = MASK.exec(hint);
  expect({ hint, masked: parts !== null }).toEqual({ hint, masked: true });
  const [, head, tail] = parts!;
  expect({ hint, secret, startsWithHead: secret.startsWith(head), endsWithTail: secret.endsWith(tail) }).toEqual({ hint, secret, startsWithHead: true, endsWithTail: true });
  expect(tail.length).toBeGreaterThanOrEqual(4);
  expect(secret.length - head.length - tail.length).toBeGreaterThanOrEqual(16); // most of it stays hidden
}

describe('secret hints end with the secret’s own last characters', () => {
  const suite = appPerSuite(() => startTestApi());

  it('API keys: secret, publishable and restricted, live and test', async () => {
    const businesses = suite.api.app.get(BusinessService);
    for (const simulated of [true, false]) {
      const created = await businessWithKey(suite.api, simulated, 'Hint Shop', { contact: false });
      const byType = (type: string) => created.keys.find((k) => k.type === type)!;
      expectHintOf(byType('secret').redacted_key, created.secret_key);
      expectHintOf(byType('publishable').redacted_key, created.publishable_key);
      const restricted = await businesses.createKey({ businessId: created.business.id, kind: 'restricted', mode: simulated ? 'test' : 'live', permissions: 'payments:read' });
      expectHintOf(restricted.key.redacted_key, restricted.secret);
      const listed = (await businesses.listKeys(created.business.id)).find((k) => k.id === restricted.key.id)!;
      expect(listed.redacted_key).toBe(restricted.key.redacted_key);
    }
  });

  it('webhook signing secrets: on create, on rotate, and as read back afterwards', async () => {
    const { client } = await businessWithKey(suite.api, true, 'Hook Shop', { contact: false });
    for (let i = 0; i < 5; i++) {
      const created = await client.post('/webhooks', { url: `https://hooks.example.com/in/${i}`, event_types: ['payment.succeeded'] });
      expect(created.status).toBe(201);
      expectHintOf(created.body.data.secret_hint, created.body.data.secret);
      expectHintOf((await client.get(`/webhooks/${created.body.data.id}`)).body.data.secret_hint, created.body.data.secret);

      const rotated = await client.post(`/webhooks/${created.body.data.id}/rotate-secret`);
      expect(rotated.status).toBe(200);
      expectHintOf(rotated.body.data.secret_hint, rotated.body.data.secret);
      expectHintOf((await client.get(`/webhooks/${created.body.data.id}`)).body.data.secret_hint, rotated.body.data.secret);
    }
  });
});
