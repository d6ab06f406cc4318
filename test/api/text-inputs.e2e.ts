import type { OpenAPIObject, OperationObject, ReferenceObject, SchemaObject } from '@nestjs/swagger';
import { Answer, businessWithKey } from '../support/fixtures';
import { Browser, PASSWORD, accountsAppForSuite, challenge, newEmail, steppedUpOwner } from '../accounts/support';

/**
 * Text inputs and change bodies, the same on every route (audit findings closed 2026-11-28):
 * - free texts are plain text: a single-line display text (a business, key, customer, link or
 *   passkey name, a payment's reference) refuses control characters, line breaks and
 *   bidirectional overrides; a multi-line one (a description, a note) takes line breaks and tabs
 *   but refuses the rest (decision 0035, libs/http @PlainText);
 * - every e-mail address is trimmed, payments' and checkouts' as customers' (decision 0029);
 * - a link's description is trimmed, blank is null (decision 0030);
 * - every PATCH answers a body naming no field with 400 invalid_request (decision 0039, @ChangeBody);
 * - a card-only link is refused outside the card price ($5 to $10,000) with amount_out_of_range (decision 0030).
 */
describe('text inputs and change bodies, one rule each across the API', () => {
  const suite = accountsAppForSuite({ logs: false });

  const expectRefused = (answer: Answer, field: string | null, code = 'invalid_request', what = '') => {
    expect({ what, status: answer.status, code: answer.body?.error?.code, field: answer.body?.error?.field }).toEqual({ what, status: 400, code, field });
  };

  type Send = (body: Record<string, unknown>) => Promise<Answer>;
  /** Each display text of the API, by route: [what, send, base body, field, lines]. */
  async function textFields(): Promise<[string, Send, Record<string, unknown>, string, 'single-line' | 'multi-line'][]> {
    const { client, business } = await businessWithKey(suite.api, true, 'Texts');
    const owner = await steppedUpOwner(suite);
    const customer = (await client.post('/customers', { email: `c-${Date.now()}@shop.example` })).body.data.id as string;
    const link = (await client.post('/links', { name: 'Mug', amount: 2500, currency: 'USD' })).body.data.id as string;
    const hook = (await client.post('/webhooks', { url: 'https://hooks.example.com/in', event_types: ['payment.created'] })).body.data.id as string;
    const key = (await owner.as.post('/api-keys', { type: 'restricted', mode: 'test', permissions: { payments: 'read' } })).body.data.id as string;
    let emails = 0;
    return [
      ['PATCH /businesses/{id}', (b) => client.patch(`/businesses/${business.id}`, b), {}, 'name', 'single-line'],
      ['PATCH /checkout-settings', (b) => client.patch('/checkout-settings', b), {}, 'display_name', 'single-line'],
      ['POST /api-keys', (b) => owner.as.post('/api-keys', b), { type: 'secret', mode: 'test' }, 'name', 'single-line'],
      ['PATCH /api-keys/{id}', (b) => owner.as.patch(`/api-keys/${key}`, b), {}, 'name', 'single-line'],
      ['POST /businesses', (b) => owner.b.post('/businesses', b), { simulated: true }, 'name', 'single-line'],
      ['POST /accounts', (b) => new Browser(suite.api).post('/accounts', b, challenge('sign_up')), { email: newEmail('texts'), password: PASSWORD }, 'business_name', 'single-line'],
      ['POST /customers', (b) => client.post('/customers', { email: `t${++emails}-${Date.now()}@shop.example`, ...b }), {}, 'name', 'single-line'],
      ['POST /customers', (b) => client.post('/customers', { email: `t${++emails}-${Date.now()}@shop.example`, ...b }), {}, 'note', 'multi-line'],
      ['PATCH /customers/{id}', (b) => client.patch(`/customers/${customer}`, b), {}, 'name', 'single-line'],
      ['PATCH /customers/{id}', (b) => client.patch(`/customers/${customer}`, b), {}, 'note', 'multi-line'],
      ['POST /links', (b) => client.post('/links', b), { name: 'Mug', amount: 2500, currency: 'USD' }, 'name', 'single-line'],
      ['POST /links', (b) => client.post('/links', b), { name: 'Mug', amount: 2500, currency: 'USD' }, 'description', 'multi-line'],
      ['PATCH /links/{id}', (b) => client.patch(`/links/${link}`, b), {}, 'name', 'single-line'],
      ['PATCH /links/{id}', (b) => client.patch(`/links/${link}`, b), {}, 'description', 'multi-line'],
      ['POST /payments', (b) => client.post('/payments', b), { amount: 2500, currency: 'USD' }, 'reference', 'single-line'],
      ['POST /payments', (b) => client.post('/payments', b), { amount: 2500, currency: 'USD' }, 'description', 'multi-line'],
      ['POST /webhooks', (b) => client.post('/webhooks', b), { url: 'https://hooks.example.com/in', event_types: ['payment.created'] }, 'description', 'multi-line'],
      ['PATCH /webhooks/{id}', (b) => client.patch(`/webhooks/${hook}`, b), {}, 'description', 'multi-line'],
    ];
  }

  it('a display text with a control character, a line break or a bidirectional override is 400 invalid_request naming the field', async () => {
    const wrong: string[] = [];
    for (const [what, send, base, field, lines] of await textFields()) {
      const refused = ['Shop\u0007', 'Shop\u001B[31m', 'Shop\u0085', 'abc\u202Egpj.exe', 'a\u2066b\u2069', 'a\u2028b', ...(lines === 'single-line' ? ['Shop\nBcc: x@evil.example', 'a\tb', 'a\rb'] : [])];
      for (const text of refused) {
        const answer = await send({ ...base, [field]: text });
        if (answer.status !== 400 || answer.body.error.code !== 'invalid_request' || answer.body.error.field !== field) wrong.push(`${what} ${field} ${JSON.stringify(text)}: ${answer.status} ${JSON.stringify(answer.body)}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('a multi-line text takes line breaks and tabs; a single-line one is trimmed of the breaks around it; every script passes', async () => {
    const wrong: string[] = [];
    for (const [what, send, base, field, lines] of await textFields()) {
      if (what === 'POST /accounts') continue; // a sign-up per address: taken texts are the next test's
      // a payment's reference and description are kept as sent (not trimmed): surrounding breaks are tried on trimmed texts only
      const trimmed = !(what === 'POST /payments');
      const taken = lines === 'multi-line' ? ['First line\nsecond\r\n\tindented', 'Café 👩\u200D💻 מכולת\u200F'] : [trimmed ? '\n  Corner Café 👩\u200D💻\r\n' : 'Corner Café 👩\u200D💻', 'מכולת השכונה\u200F'];
      for (const text of taken) {
        const answer = await send({ ...base, [field]: text });
        if (answer.status >= 300) wrong.push(`${what} ${field} ${JSON.stringify(text)}: ${answer.status} ${JSON.stringify(answer.body)}`);
        else if (what !== 'POST /businesses' && what !== 'PATCH /checkout-settings' && answer.body.data[field] !== text.trim()) wrong.push(`${what} ${field}: kept ${JSON.stringify(answer.body.data[field])}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('the findings as recorded: a business name and a key name with BEL or a newline are refused, and nothing changes', async () => {
    const { client, business } = await businessWithKey(suite.api, true, 'Corner Shop');
    expectRefused(await client.patch(`/businesses/${business.id}`, { name: 'Corner\u0007Shop' }), 'name');
    expectRefused(await client.patch(`/businesses/${business.id}`, { name: 'Corner\nShop' }), 'name');
    expect((await client.get('/business')).body.data.name).toBe('Corner Shop');
    const owner = await steppedUpOwner(suite);
    expectRefused(await owner.as.post('/api-keys', { type: 'secret', mode: 'test', name: 'ci\u0007' }), 'name');
    const key = (await owner.as.post('/api-keys', { type: 'secret', mode: 'test', name: 'ci' })).body.data;
    expectRefused(await owner.as.patch(`/api-keys/${key.id}`, { name: 'ci\nprod' }), 'name');
    const listed = (await owner.as.get('/api-keys')).body.data.find((k: { id: string }) => k.id === key.id);
    expect(listed.name).toBe('ci');
  });

  it('the document marks every free text of every request body with its rule (x-text); the other strings are formats, values or codes', async () => {
    const doc = (await (await fetch(`${suite.api.base}/openapi.json`)).json()) as OpenAPIObject;
    const schemas = doc.components!.schemas as Record<string, SchemaObject>;
    /** Strings that are not free text: identifiers, codes, tokens, secrets, hashes, addresses, keys, amounts in words of a coin. */
    const NOT_TEXT = new Set([
      'payment_code', 'link_code', 'signup_id', 'challenge_id', 'code', 'token', 'tx_hash', 'to_address', 'signed_transaction', 'funding_transaction', 'recovery_phrase',
      'evm_xpub', 'bitcoin_xpub', 'solana_address', 'password', 'new_password', 'current_password', 'recovery_code', 'asset', 'network', 'amount', 'referral_code',
    ]);
    // a sign-in's address is a lookup (any text that names no account is invalid_credentials), not an address the API keeps
    const lookups = new Set(['POST /sessions email']);
    const unmarked: string[] = [];
    const marked: string[] = [];
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const method of ['post', 'patch', 'put'] as const) {
        const op = item[method] as OperationObject | undefined;
        const ref = (op?.requestBody as { content?: Record<string, { schema: ReferenceObject }> } | undefined)?.content?.['application/json']?.schema?.$ref;
        if (!ref) continue;
        const body = schemas[ref.split('/').pop()!];
        for (const [field, s] of Object.entries(body.properties ?? {}) as [string, SchemaObject & { 'x-text'?: string }][]) {
          if (s.type !== 'string') continue;
          if (s['x-text']) marked.push(`${method.toUpperCase()} ${path} ${field} ${s['x-text']}`);
          else if (!s.format && !s.enum && !s.pattern && !NOT_TEXT.has(field) && !lookups.has(`${method.toUpperCase()} ${path} ${field}`)) unmarked.push(`${method.toUpperCase()} ${path} ${field}`);
        }
      }
    }
    expect(unmarked).toEqual([]);
    expect(marked).toEqual(
      expect.arrayContaining([
        'POST /accounts business_name single-line', 'PATCH /businesses/{id} name single-line', 'POST /businesses name single-line', 'PATCH /checkout-settings display_name single-line',
        'POST /api-keys name single-line', 'PATCH /api-keys/{id} name single-line', 'POST /me/passkeys name single-line', 'POST /customers name single-line', 'POST /customers note multi-line',
        'PATCH /customers/{id} name single-line', 'POST /links name single-line', 'POST /links description multi-line', 'POST /payments reference single-line', 'POST /payments description multi-line',
        'POST /webhooks description multi-line', 'PATCH /webhooks/{id} description multi-line', 'POST /wallet/transactions note multi-line',
      ]),
    );
  });

  it('every e-mail address is trimmed: POST /payments customer_email, POST /checkouts and the claim`s email, as POST /customers', async () => {
    const { client } = await businessWithKey(suite.api, true, 'Addresses');
    const spaced = ' \tann@shop.example \n';
    const customer = await client.post('/customers', { email: spaced });
    expect(customer.status).toBe(201);
    expect(customer.body.data.email).toBe('ann@shop.example');
    const payment = await client.post('/payments', { amount: 2500, currency: 'USD', customer_email: spaced });
    expect(payment.status).toBe(201);
    expect(payment.body.data.customer_id).toBe(customer.body.data.id); // the same address, the same customer
    const checkout = await client.openCheckout(await client.createPayment(), { email: spaced });
    expect(checkout.email).toBe('ann@shop.example');
    // a claim's e-mail, on a canceled checkout without one
    const bare = await client.openCheckout(await client.createPayment());
    expect((await client.as(null).post(`/checkouts/${bare.id}/cancel`)).status).toBe(200);
    const claim = await client.as(null).post(`/checkouts/${bare.id}/claim`, { tx_hash: '0x' + 'ab'.repeat(32), email: spaced });
    expect(claim.status).toBe(200);
    expect((await client.get(`/checkouts/${bare.id}`)).body.data.email).toBe('ann@shop.example');
    // what is still not an address is refused with each route's code
    expectRefused(await client.post('/payments', { amount: 2500, currency: 'USD', customer_email: ' ann @shop.example ' }), 'customer_email', 'invalid_email');
    expectRefused(await client.as(null).postOnce('/checkouts', { payment_code: (await client.createPayment()).url.split('/').pop(), asset: 'USDC', network: 'ethereum', email: '   ' }), 'email', 'invalid_email');
    expectRefused(await client.post('/customers', { email: ' ann @shop.example ' }), 'email');
    // an address past 254 characters is an invalid address too (spec §7): invalid_email, as a 65-character local part is, and nothing made
    const long = `${'a'.repeat(60)}@${'b'.repeat(190)}.example`; // 259 characters
    const payments = (await client.get('/payments?limit=100')).body.data.length;
    expectRefused(await client.post('/payments', { amount: 2500, currency: 'USD', customer_email: long }), 'customer_email', 'invalid_email');
    expectRefused(await client.post('/payments', { amount: 2500, currency: 'USD', customer_email: `${'a'.repeat(65)}@shop.example` }), 'customer_email', 'invalid_email');
    expect((await client.get('/payments?limit=100')).body.data.length).toBe(payments);
    const open = await client.createPayment();
    expectRefused(await client.as(null).postOnce('/checkouts', { payment_code: open.url.split('/').pop(), asset: 'USDC', network: 'ethereum', email: long }), 'email', 'invalid_email');
    expect((await client.get(`/payments/${open.id}`)).body.data.checkout_id).toBeNull();
    expectRefused(await client.as(null).post(`/checkouts/${bare.id}/claim`, { tx_hash: '0x' + 'cd'.repeat(32), email: long }), 'email', 'invalid_email');
    // other routes keep invalid_request for an address (§7)
    expectRefused(await client.post('/customers', { email: long }), 'email');
  });

  it('a query value or name that is not UTF-8 once percent-decoded is 400 invalid_request naming the parameter on every list and search, as in a path; valid encodings are read (audit 2026-11-30, F2)', async () => {
    const { client } = await businessWithKey(suite.api, true, 'Queries');
    const bad = ['%FF', '%ED%A0%80', '%E2%82', '%E0%A4%A', 'a%C0%80', '100%'];
    const cases: [string, string][] = [
      ...bad.map((v): [string, string] => [`/payments?reference=${v}`, 'reference']),
      ['/payments?metadata%5Bk%5D=%FF', 'metadata[k]'],
      ['/payments?metadata[k]=%ED%A0%80', 'metadata[k]'],
      ['/payments?limit=2&reference=%E2%82', 'reference'],
      ['/payments?%FF=1', 'query'],
      ['/customers?email=%ED%A0%80', 'email'],
      ...bad.map((v): [string, string] => [`/search?q=${v}`, 'q']),
      ['/search?q=shop&kind=%FF', 'kind'],
    ];
    for (const [path, field] of cases) {
      const answer = await client.get(path);
      expect({ path, status: answer.status, code: answer.body.error?.code, field: answer.body.error?.field, message: answer.body.error?.message }).toEqual({
        path,
        status: 400,
        code: 'invalid_request',
        field,
        message: 'The query parameter is malformed (bad percent-encoding or not UTF-8).',
      });
    }
    // well-formed UTF-8 is read as ever: an emoji, U+FFFD itself, a space as + or %20, an encoded %
    for (const q of ['%F0%9F%98%80', '%EF%BF%BD', 'two+words', 'two%20words', '100%25']) {
      expect([q, (await client.get(`/search?q=${q}`)).status, (await client.get(`/payments?reference=${q}`)).status]).toEqual([q, 200, 200]);
    }
  });

  it('a link`s description is trimmed and blank is null, as a link`s name is trimmed', async () => {
    const { client } = await businessWithKey(suite.api, true, 'Link texts');
    const link = (await client.post('/links', { name: '  Mug  ', amount: 2500, currency: 'USD', description: '  Blue, 350 ml \n' })).body.data;
    expect({ name: link.name, description: link.description }).toEqual({ name: 'Mug', description: 'Blue, 350 ml' });
    expect((await client.post('/links', { name: 'Mug', amount: 2500, currency: 'USD', description: '   ' })).body.data.description).toBeNull();
    expect((await client.post('/links', { name: 'Mug', amount: 2500, currency: 'USD', description: '' })).body.data.description).toBeNull();
    expect((await client.patch(`/links/${link.id}`, { description: ' ' })).body.data.description).toBeNull();
    expect((await client.patch(`/links/${link.id}`, { description: ' Red ' })).body.data.description).toBe('Red');
  });

  it('every PATCH route answers a body that names no field (`{}` or none) with 400 invalid_request and changes nothing', async () => {
    const { client, business } = await businessWithKey(suite.api, true, 'Changes');
    const owner = await steppedUpOwner(suite);
    const payment = await client.createPayment();
    const customer = (await client.post('/customers', { email: `p-${Date.now()}@shop.example` })).body.data.id;
    const link = (await client.post('/links', { name: 'Mug', amount: 2500, currency: 'USD' })).body.data.id;
    const hook = (await client.post('/webhooks', { url: 'https://hooks.example.com/in', event_types: ['payment.created'] })).body.data;
    const key = (await owner.as.post('/api-keys', { type: 'restricted', mode: 'test', name: 'k', permissions: { payments: 'read' } })).body.data.id;
    const routes: [string, (body?: unknown) => Promise<Answer>][] = [
      [`/payments/${payment.id}`, (b) => client.call('PATCH', `/payments/${payment.id}`, b)],
      [`/businesses/${business.id}`, (b) => client.call('PATCH', `/businesses/${business.id}`, b)],
      ['/checkout-settings', (b) => client.call('PATCH', '/checkout-settings', b)],
      [`/customers/${customer}`, (b) => client.call('PATCH', `/customers/${customer}`, b)],
      [`/links/${link}`, (b) => client.call('PATCH', `/links/${link}`, b)],
      [`/webhooks/${hook.id}`, (b) => client.call('PATCH', `/webhooks/${hook.id}`, b)],
      [`/api-keys/${key}`, (b) => owner.as.patch(`/api-keys/${key}`, b as Record<string, unknown>)],
    ];
    for (const [path, send] of routes) {
      for (const body of [{}, undefined]) {
        const answer = await send(body);
        expectRefused(answer, null, 'invalid_request', `PATCH ${path} ${JSON.stringify(body)}`);
        expect(answer.body.error.message).toMatch(/^Send at least one field to change: /);
      }
    }
    expect((await client.get(`/webhooks/${hook.id}`)).body.data.updated_at).toBe(hook.updated_at);
    // a field sent as null is a change where null is a value
    expect((await client.patch(`/payments/${payment.id}`, { metadata: null })).status).toBe(200);
    expect((await client.patch(`/links/${link}`, { description: null })).status).toBe(200);
    expect((await owner.as.patch(`/api-keys/${key}`, { name: null })).status).toBe(200);
  });

  it('a card-only link outside the card price ($5 to $10,000) is 400 amount_out_of_range on create and on update; one with crypto is not', async () => {
    const { client } = await businessWithKey(suite.api, true, 'Card links');
    const card = { name: 'Sofa', currency: 'USD', rails: ['card'] };
    expectRefused(await client.post('/links', { ...card, amount: 1_000_001 }), 'amount', 'amount_out_of_range');
    expect((await client.post('/links', { ...card, amount: 1_000_000 })).status).toBe(201); // $10,000: what a card is charged on a link (the business pays the fee)
    const cheap = await client.post('/links', { ...card, amount: 300 }); // $3: every card checkout would be amount_out_of_range
    expectRefused(cheap, 'amount', 'amount_out_of_range');
    expect(cheap.body.error.message).toContain('between 5 and 10,000 USD');
    expectRefused(await client.post('/links', { ...card, amount: 100 }), 'amount', 'amount_out_of_range');
    expect((await client.post('/links', { ...card, amount: 500 })).status).toBe(201); // $5
    expect((await client.post('/links', { ...card, rails: ['crypto', 'card'], amount: 5_000_000 })).status).toBe(201); // crypto can take it
    expect((await client.post('/links', { ...card, rails: ['crypto', 'card'], amount: 300 })).status).toBe(201);
    const link = (await client.post('/links', { ...card, rails: null, amount: 5_000_000 })).body.data;
    expectRefused(await client.patch(`/links/${link.id}`, { rails: ['card'] }), 'amount', 'amount_out_of_range');
    const small = (await client.post('/links', { ...card, rails: ['crypto'], amount: 300 })).body.data;
    expectRefused(await client.patch(`/links/${small.id}`, { rails: ['card'] }), 'amount', 'amount_out_of_range');
    const cardLink = (await client.post('/links', { ...card, amount: 2500 })).body.data;
    expectRefused(await client.patch(`/links/${cardLink.id}`, { amount: 1_000_001 }), 'amount', 'amount_out_of_range');
    expectRefused(await client.patch(`/links/${cardLink.id}`, { amount: 300 }), 'amount', 'amount_out_of_range');
    expect((await client.get(`/links/${cardLink.id}`)).body.data).toMatchObject({ amount: 2500, rails: ['card'] });
    expect((await client.get(`/links/${link.id}`)).body.data).toMatchObject({ amount: 5_000_000, rails: null });
    expect((await client.get(`/links/${small.id}`)).body.data).toMatchObject({ amount: 300, rails: ['crypto'] });
  });
});
