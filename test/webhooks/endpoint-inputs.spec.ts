import { validateInput } from '@lib/http';
import { CreateWebhookBody, UpdateWebhookBody } from '../../libs/webhooks/src';

/** The refusal an input gets (code, field, message), or the valid input. */
async function check<T extends object>(type: new () => T, value: unknown): Promise<T | { code: string; field: string | null; message: string }> {
  try {
    return { ...(await validateInput(type, value)) };
  } catch (error) {
    const e = error as { code?: string; field?: string | null; message: string };
    if (e.code === undefined) throw error;
    return { code: e.code, field: e.field ?? null, message: e.message };
  }
}

const url = 'https://hooks.example.com/in';

describe('create-endpoint input (CreateWebhookBody): the shape, in one place', () => {
  it('trims the description; leaves defaults to the decider', async () => {
    expect(await check(CreateWebhookBody, { url, event_types: ['*'], description: ' Orders ' })).toEqual({ url, event_types: ['*'], description: 'Orders' });
    expect(await check(CreateWebhookBody, { url, event_types: ['payment.failed'], enabled: false })).toEqual({ url, event_types: ['payment.failed'], enabled: false });
  });

  it('refuses each malformed field with 400 invalid_request naming it', async () => {
    const cases: [Record<string, unknown>, string, RegExp?][] = [
      [{ event_types: ['*'] }, 'url', /^url is required\.$/],
      [{ url: 5, event_types: ['*'] }, 'url'],
      [{ url }, 'event_types'],
      [{ url, event_types: [] }, 'event_types', /^event_types needs at least one event type \(or "\*" for all\)\.$/],
      [{ url, event_types: 'payment.succeeded' }, 'event_types'],
      [{ url, event_types: [5] }, 'event_types'],
      [{ url, event_types: Array(101).fill('*') }, 'event_types'],
      [{ url, event_types: ['*'], enabled: 'yes' }, 'enabled'],
      [{ url, event_types: ['*'], enabled: null }, 'enabled'],
      [{ url, event_types: ['*'], description: 7 }, 'description'],
      [{ url, event_types: ['*'], description: null }, 'description'], // as PATCH refuses it: left out means none (hooks audit L1, 2026-11-29)
      [{ url, event_types: ['*'], description: 'x'.repeat(501) }, 'description', /^description is at most 500 characters\.$/],
      [{ url, event_types: ['*'], secret: 'whsec_mine' }, 'secret', /^secret is not a known field\.$/],
    ];
    for (const [body, field, message] of cases) {
      const refused = await check(CreateWebhookBody, body);
      expect({ body, refused }).toEqual({ body, refused: { code: 'invalid_request', field, message: message ? expect.stringMatching(message) : expect.any(String) } });
    }
    // 500 characters once trimmed is within the limit
    expect(await check(CreateWebhookBody, { url, event_types: ['*'], description: ` ${'x'.repeat(500)} ` })).toMatchObject({ description: 'x'.repeat(500) });
  });
});

describe('update-endpoint input (UpdateWebhookBody)', () => {
  it('takes only what is sent, and refuses a body that changes nothing (every PATCH route: decision 0039, addendum of 2026-11-28)', async () => {
    expect(await check(UpdateWebhookBody, {})).toEqual({
      code: 'invalid_request',
      field: null,
      message: 'Send at least one field to change: url, event_types, description, enabled.',
    });
    expect(await check(UpdateWebhookBody, { enabled: false, description: ' b ' })).toEqual({ enabled: false, description: 'b' });
  });

  it('refuses null for every field, an empty event_types and unknown fields', async () => {
    for (const [body, field] of [
      [{ url: null }, 'url'],
      [{ event_types: null }, 'event_types'],
      [{ event_types: [] }, 'event_types'],
      [{ enabled: null }, 'enabled'],
      [{ description: null }, 'description'],
      [{ description: 'x'.repeat(501) }, 'description'],
      [{ kind: 'webhook' }, 'kind'],
    ] as [Record<string, unknown>, string][]) {
      expect({ body, refused: await check(UpdateWebhookBody, body) }).toEqual({ body, refused: expect.objectContaining({ code: 'invalid_request', field }) });
    }
    // audit "rest" finding 7: null (or a string) is not an array, whatever its members' rule says; members are told their own
    for (const [body, message] of [
      [{ event_types: null }, 'event_types must be an array.'],
      [{ event_types: 'payment.succeeded' }, 'event_types must be an array.'],
      [{ event_types: [5] }, 'each value in event_types must be a string.'],
    ] as [Record<string, unknown>, string][]) {
      expect({ body, refused: await check(UpdateWebhookBody, body) }).toEqual({ body, refused: { code: 'invalid_request', field: 'event_types', message } });
    }
    expect(await check(CreateWebhookBody, { url, event_types: null })).toEqual({ code: 'invalid_request', field: 'event_types', message: 'event_types must be an array.' });
    // a flag is told it must be true or false, as on every other route (recheck audit L3)
    expect(await check(UpdateWebhookBody, { enabled: 'yes' })).toEqual({ code: 'invalid_request', field: 'enabled', message: 'enabled must be true or false.' });
  });
});
