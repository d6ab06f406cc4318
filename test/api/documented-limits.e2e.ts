import { BusinessMailModule, CapturingBusinessMail } from '@lib/businesses';
import { testChallengeToken } from '@lib/challenge';
import type { OpenAPIObject, OperationObject, ReferenceObject, SchemaObject } from '@nestjs/swagger';
import { describeApi } from '../../apps/api/src/platform/openapi';
import { randomUUID } from 'node:crypto';
import { AccountsTestApp, Browser, challenge, PASSWORD, newEmail, signIn, signUp, startAccountsApp } from '../accounts/support';
import { SoftwareAuthenticator } from '../accounts/software-authenticator';
import { Answer, TestApi, businessWithKey } from '../support/fixtures';

/** Well-formed WebAuthn answers (to no waiting options: their other fields are what is tried). */
const authenticator = new SoftwareAuthenticator('http://127.0.0.1');
const PASSKEY_REGISTRATION = authenticator.create({ challenge: 'AAAA', rp: { id: '127.0.0.1', name: 'x' }, user: { id: 'dQ', name: 'u' } });
const PASSKEY_ASSERTION = authenticator.get({ challenge: 'AAAA', rpId: '127.0.0.1' });

/**
 * The request bodies the document describes are the ones the server takes (issue 18): for every
 * limit the served document states for a body field — type, enum, pattern, format, lengths,
 * ranges, counts, the items of an array, the values of a map — a body that breaks it alone is
 * refused with 400, a code the operation lists and `field` naming that field; and a body exactly
 * at a maximum is taken. The cases are derived from the document, so a limit added to a DTO (or
 * to a @CheckedBy rule) is tested here without writing a case, and a limit the server does not
 * keep fails.
 */

type Schema = SchemaObject & { nullable?: boolean };

interface Operation {
  method: 'post' | 'patch';
  path: string;
  /** A body the server takes (the field under test replaces one of its fields). */
  base: Record<string, unknown>;
  /** Sends `body` to a fresh target (a new payment, checkout or endpoint when the route needs one). */
  send(body: Record<string, unknown>): Promise<Answer>;
  /** Whether a body at a maximum must be taken here (not where the target's state decides, such as a claim). */
  takesMaxima: boolean;
}

/** A value of `schema` (for filling a map or an array up to its limit). */
/** The document's component schemas (set once it is fetched): an item given as a $ref is sampled from its component. */
let components: Record<string, Schema> = {};

function sample(schema: Schema | undefined): unknown {
  const ref = (schema as { $ref?: string } | undefined)?.$ref;
  if (ref !== undefined) return sample(components[ref.split('/').pop()!]);
  if (schema?.enum) return schema.enum.find((v) => v !== null && v !== '*');
  if (schema?.properties) return Object.fromEntries(Object.entries(schema.properties).map(([name, property]) => [name, sample(property as Schema)]));
  return schema?.type === 'integer' || schema?.type === 'number' ? (schema.minimum ?? 1) : 'v';
}

/** A string of exactly `length` characters in `schema`'s format. */
function stringOf(schema: Schema, length: number): string {
  if (schema.format === 'uri') return `https://example.com/${'a'.repeat(Math.max(0, length - 20))}`;
  if (schema.format === 'email') {
    // a short local part and a long host of labels of at most 63 characters, as an address may have
    let host = 'example.com';
    while (host.length < length - 2) host = `${'b'.repeat(Math.min(60, length - 2 - host.length - 1) || 1)}.${host}`;
    return `a@${host}`.slice(-length);
  }
  return 'a'.repeat(length);
}

interface Case {
  what: string;
  value: unknown;
}

/** Values that break one rule of `schema` each. */
function violations(schema: Schema): Case[] {
  const cases: Case[] = [];
  const type = schema.type;
  if (type === 'integer') cases.push({ what: 'not an integer', value: 1.5 });
  if (type === 'string') cases.push({ what: 'not a string', value: 12 });
  if (type === 'boolean') cases.push({ what: 'not a boolean', value: 'yes' });
  if (type === 'object') cases.push({ what: 'not an object', value: 'text' });
  if (type === 'array') cases.push({ what: 'not an array', value: 'text' });
  if (!schema.nullable) cases.push({ what: 'null', value: null });
  if (schema.minimum !== undefined) cases.push({ what: `below minimum ${schema.minimum}`, value: schema.minimum - 1 });
  if (schema.maximum !== undefined) cases.push({ what: `above maximum ${schema.maximum}`, value: schema.maximum + 1 });
  if (schema.enum) cases.push({ what: 'not in the enum', value: 'not_a_value' });
  if (schema.pattern) cases.push({ what: `not matching ${schema.pattern}`, value: '!not matching!' });
  // a free text's rule (x-text, libs/http @PlainText): a control character, a bidirectional override; a line break in a single line
  const text = (schema as { 'x-text'?: string })['x-text'];
  if (text !== undefined) cases.push({ what: 'a control character', value: 'a\u0007b' }, { what: 'a bidirectional override', value: 'a\u202Eb' });
  if (text === 'single-line') cases.push({ what: 'a line break', value: 'a\nb' });
  if (schema.format === 'email') cases.push({ what: 'not an e-mail', value: 'not-an-email' });
  if (schema.format === 'uri') cases.push({ what: 'not a URI', value: 'not a uri' });
  if (schema.format === 'date-time') cases.push({ what: 'not a date-time', value: 'yesterday' });
  if (schema.minLength !== undefined && schema.minLength > 0) cases.push({ what: `shorter than ${schema.minLength}`, value: stringOf(schema, schema.minLength - 1) });
  if (schema.maxLength !== undefined && !schema.pattern && !schema.enum) cases.push({ what: `longer than ${schema.maxLength}`, value: stringOf(schema, schema.maxLength + 1) });
  const values = typeof schema.additionalProperties === 'object' ? (schema.additionalProperties as Schema) : undefined;
  if (schema.maxProperties !== undefined) {
    cases.push({ what: `more than ${schema.maxProperties} keys`, value: Object.fromEntries(Array.from({ length: schema.maxProperties + 1 }, (_, i) => [`k${i}`, sample(values)])) });
  }
  if (values?.type === 'string') cases.push({ what: 'a value that is not a string', value: { k: 12 } });
  if (values?.maxLength !== undefined) cases.push({ what: `a value longer than ${values.maxLength}`, value: { k: 'a'.repeat(values.maxLength + 1) } });
  const items = schema.items as Schema | undefined;
  if (schema.minItems !== undefined && schema.minItems > 0) cases.push({ what: `fewer than ${schema.minItems} items`, value: [] });
  if (schema.maxItems !== undefined) cases.push({ what: `more than ${schema.maxItems} items`, value: Array.from({ length: schema.maxItems + 1 }, () => sample(items)) });
  if (items?.type === 'string') cases.push({ what: 'an item that is not a string', value: [12] });
  if (items?.enum) cases.push({ what: 'an item not in the enum', value: ['not_a_value'] });
  return cases;
}

/** Values exactly at one maximum of `schema` each. */
function maxima(schema: Schema): Case[] {
  const cases: Case[] = [];
  if (schema.maximum !== undefined) cases.push({ what: `at maximum ${schema.maximum}`, value: schema.maximum });
  if (schema.maxLength !== undefined && !schema.pattern && !schema.enum) cases.push({ what: `${schema.maxLength} characters`, value: stringOf(schema, schema.maxLength) });
  const values = typeof schema.additionalProperties === 'object' ? (schema.additionalProperties as Schema) : undefined;
  if (schema.maxProperties !== undefined) {
    const value = values?.maxLength !== undefined ? 'a'.repeat(values.maxLength) : sample(values);
    cases.push({ what: `${schema.maxProperties} keys, each value at its maximum`, value: Object.fromEntries(Array.from({ length: schema.maxProperties }, (_, i) => [`k${i}`, value])) });
  }
  if (schema.maxItems !== undefined) cases.push({ what: `${schema.maxItems} items`, value: Array.from({ length: schema.maxItems }, () => sample(schema.items as Schema | undefined)) });
  return cases;
}

describe('the limits the OpenAPI document states for request bodies are the ones the server keeps', () => {
  let api: TestApi;
  let accounts: AccountsTestApp;
  let doc: OpenAPIObject;
  const operations: Operation[] = [];

  const bodySchema = (method: string, path: string): Schema => {
    const op = doc.paths[path]?.[method as 'post'] as OperationObject | undefined;
    if (!op) throw new Error(`${method.toUpperCase()} ${path} is not in the document`);
    const schema = (op.requestBody as { content: Record<string, { schema: ReferenceObject }> }).content['application/json'].schema;
    return doc.components!.schemas![schema.$ref.split('/').pop()!] as Schema;
  };
  const errorCodes = (method: string, path: string): string[] => (doc.paths[path][method as 'post']!.responses['400'] as unknown as { 'x-error-codes': string[] })['x-error-codes'];

  beforeAll(async () => {
    // the accounts capability with a real SMTP server: POST /me/password needs a signed-in person
    accounts = await startAccountsApp('embedded', {}, undefined, [BusinessMailModule.using(new CapturingBusinessMail())]); // new alert addresses: mail captured (a 254-character address is no SMTP server's)
    api = accounts.api;
    const person = new Browser(api);
    const { email, businessId: personBusiness } = await signUp(accounts, person);
    const personBusinessHeader = { 'service-business': personBusiness };
    // the same person in another browser (another address): /me/two-factor shares POST /me/password's per-IP budget (me.sensitive)
    const [twoStep, twoStepOff] = [new Browser(api), new Browser(api)];
    for (const b of [twoStep, twoStepOff]) if ((await signIn(b, email)).status !== 201) throw new Error('sign-in failed');
    // the passkey routes need a step-up (decision 0037); each route from a browser of its own (per-IP limits), with the same session
    expect((await person.post('/sessions/current/step-up', { current_password: PASSWORD })).status).toBe(200);
    const personKey = async () => (await person.post('/api-keys', { type: 'restricted', mode: 'test', permissions: { payments: 'read' } }, personBusinessHeader)).body.data.id as string;
    const samePerson = () => {
      const other = new Browser(api);
      for (const [name, value] of person.jar) other.jar.set(name, value);
      return other;
    };
    const registering = samePerson();
    const steppingUp = samePerson();
    const asPerson = samePerson;
    doc = (await (await fetch(`${api.base}/openapi.json`)).json()) as OpenAPIObject;
    components = doc.components!.schemas as Record<string, Schema>;
    const limits = await businessWithKey(api, true, 'Limits');
    const shop = limits.client;
    const settings = await businessWithKey(api, false, 'Business limits');
    const clock = (await businessWithKey(api, true, 'Clock')).client; // its own business: the maximum advance moves its clock a year
    const anyone = shop.as(null);
    const people = (await businessWithKey(api, true, 'Customers')).client;
    const others = (await businessWithKey(api, true, 'Customers too')).client; // PATCH's longest e-mail is POST's: another business's customer may have it
    const paymentCode = async () => (await shop.createPayment()).url.split('/').pop() as string;
    const checkoutId = async () => (await shop.openCheckout(await shop.createPayment())).id as string;
    const cardCheckoutId = async () => (await anyone.postOnce('/checkouts', { payment_code: await paymentCode(), rail: 'card', email: 'a@example.com', country: 'US' })).body.data.id as string;
    operations.push(
      { method: 'post', path: '/payments', base: { amount: 2500, currency: 'USD' }, send: (body) => shop.post('/payments', body), takesMaxima: true },
      { method: 'patch', path: '/payments/{id}', base: { metadata: { order: '1' } }, send: async (body) => shop.patch(`/payments/${(await shop.createPayment()).id}`, body), takesMaxima: true },
      { method: 'post', path: '/checkouts', base: { asset: 'USDC', network: 'ethereum' }, send: async (body) => anyone.postOnce('/checkouts', { payment_code: await paymentCode(), ...body }), takesMaxima: false },
      { method: 'post', path: '/checkouts/{id}/claim', base: { tx_hash: '0x' + '12'.repeat(32) }, send: async (body) => anyone.post(`/checkouts/${await checkoutId()}/claim`, body), takesMaxima: false },
      { method: 'post', path: '/checkouts/{id}/mark-sent', base: {}, send: async (body) => anyone.post(`/checkouts/${await checkoutId()}/mark-sent`, body), takesMaxima: false },
      { method: 'post', path: '/checkouts/{id}/card-attempts', base: {}, send: async (body) => anyone.postOnce(`/checkouts/${await cardCheckoutId()}/card-attempts`, body), takesMaxima: false },
      { method: 'patch', path: '/checkout-settings', base: { ask_email: false }, send: async (body) => (await businessWithKey(api, true, 'Settings limits')).client.patch('/checkout-settings', body), takesMaxima: true },
      // a live business (a simulated one has a wallet: its referral code is locked), the same for every try
      { method: 'patch', path: '/businesses/{id}', base: { product_updates: true }, send: (body) => settings.client.patch(`/businesses/${settings.business.id}`, body), takesMaxima: true },
      // API keys are refused after the body is checked (dashboard sessions only): the refusals are tried, a taken maximum cannot be
      // dashboard sessions only (§5.5): the person's session acting for their own business
      { method: 'post', path: '/businesses/{id}/alert-email/confirm', base: { code: '123456' }, send: (body) => person.post(`/businesses/${personBusiness}/alert-email/confirm`, body, personBusinessHeader), takesMaxima: false },
      { method: 'post', path: '/test_clock/advance', base: { seconds: 1 }, send: (body) => clock.post('/test_clock/advance', body), takesMaxima: true },
      // a business of their own (the longest customer_email of POST /payments made a customer of shop); a new address each try (the same one would be 409 customer_exists)
      { method: 'post', path: '/customers', base: { email: 'limits@shop.example' }, send: (body) => people.post('/customers', { ...body, ...(body.email === 'limits@shop.example' ? { email: `limits-${randomUUID()}@shop.example` } : {}) }), takesMaxima: true },
      { method: 'patch', path: '/customers/{id}', base: {}, send: async (body) => others.patch(`/customers/${(await others.createPayment({ customer_email: `limits-${randomUUID()}@shop.example` })).customer_id}`, body), takesMaxima: true },
      { method: 'post', path: '/links', base: { name: 'Limits', amount: 2500, currency: 'USD' }, send: (body) => shop.post('/links', body), takesMaxima: true },
      { method: 'patch', path: '/links/{id}', base: { name: 'Limits' }, send: async (body) => shop.patch(`/links/${(await shop.post('/links', { name: 'Limits', amount: 2500, currency: 'USD' })).body.data.id}`, body), takesMaxima: true },
      // a new live business for each try: a wallet taken would make the next one 409 wallet_exists
      { method: 'post', path: '/wallet', base: { type: 'created' }, send: async (body) => (await businessWithKey(api, false, 'Wallet limits')).client.post('/wallet', body), takesMaxima: false },
      // each sign-up or sign-in from a browser of its own (the per-IP limits of these routes are small); a new address each try
      { method: 'post', path: '/accounts', base: { email: 'limits@people.example', password: PASSWORD, business_name: 'Limits' }, send: (body) => new Browser(api).post('/accounts', { ...body, ...(body.email === 'limits@people.example' ? { email: newEmail('limits') } : {}) }, challenge('sign_up')), takesMaxima: false },
      { method: 'post', path: '/accounts/verify', base: { signup_id: 'sgn_none', code: '123456' }, send: (body) => new Browser(api).post('/accounts/verify', body), takesMaxima: false },
      { method: 'post', path: '/accounts/verify/resend', base: { signup_id: 'sgn_none' }, send: (body) => new Browser(api).post('/accounts/verify/resend', body), takesMaxima: false },
      { method: 'post', path: '/accounts/passkey-options', base: { signup_id: 'sgn_none' }, send: (body) => new Browser(api).post('/accounts/passkey-options', body), takesMaxima: false },
      { method: 'post', path: '/sessions', base: { email: 'nobody@people.example', password: PASSWORD }, send: (body) => new Browser(api).post('/sessions', body, challenge('sign_in')), takesMaxima: false },
      // dashboard sessions only: the person's business (a simulated one, its wallet made at sign-up); the signed transaction is refused after the body's limits
      { method: 'post', path: '/wallet/transactions', base: { asset: 'ETH', network: 'ethereum', amount: '0.001', to_address: '0x1111111111111111111111111111111111111111', signed_transaction: '0x00' }, send: (body) => person.forBusiness(personBusiness).post('/wallet/transactions', body, { 'idempotency-key': randomUUID() }), takesMaxima: false },
      { method: 'post', path: '/api-keys', base: { type: 'secret', mode: 'test' }, send: (body) => person.post('/api-keys', body, personBusinessHeader), takesMaxima: false },
      { method: 'patch', path: '/api-keys/{id}', base: {}, send: async (body) => person.call('PATCH', `/api-keys/${await personKey()}`, body, personBusinessHeader), takesMaxima: false },
      { method: 'post', path: '/businesses', base: { name: 'Limits', simulated: true }, send: (body) => person.post('/businesses', body), takesMaxima: true },
      { method: 'post', path: '/me/password', base: { current_password: 'not the password', new_password: PASSWORD }, send: (body) => person.post('/me/password', body), takesMaxima: false },
      // two-step sign-in (decision 0036): an unknown challenge, no setup, off — each refused after validation
      { method: 'post', path: '/sessions/two-factor', base: { challenge_id: 'tfc_none', code: '123456' }, send: (body) => new Browser(api).post('/sessions/two-factor', body), takesMaxima: false },
      { method: 'post', path: '/me/two-factor', base: { code: '123456', current_password: 'not the password' }, send: (body) => twoStep.post('/me/two-factor', body), takesMaxima: false },
      { method: 'post', path: '/me/two-factor/disable', base: { current_password: 'not the password', code: '123456' }, send: (body) => twoStepOff.post('/me/two-factor/disable', body), takesMaxima: false },
      { method: 'post', path: '/me/passkeys', base: { credential: PASSKEY_REGISTRATION }, send: (body) => registering.post('/me/passkeys', body), takesMaxima: false },
      { method: 'post', path: '/passkeys/authentication/verify', base: { credential: PASSKEY_ASSERTION }, send: (body) => new Browser(api).post('/passkeys/authentication/verify', body), takesMaxima: false },
      { method: 'post', path: '/sessions/current/step-up', base: { current_password: 'not the password' }, send: (body) => steppingUp.post('/sessions/current/step-up', body), takesMaxima: false },
      // password resets and e-mail changes (decision 0038): a browser of their own for each public try (per-IP rules); the person's jar in a browser of its own address for /me/email (10 an hour per IP)
      { method: 'post', path: '/password-resets', base: { email: 'nobody@people.example' }, send: (body) => new Browser(api).post('/password-resets', body, { 'service-challenge': testChallengeToken('password_reset') }), takesMaxima: false },
      { method: 'post', path: '/password-resets/check', base: { token: 'nope' }, send: (body) => new Browser(api).post('/password-resets/check', body), takesMaxima: false },
      { method: 'post', path: '/password-resets/confirm', base: { token: 'nope', new_password: PASSWORD }, send: (body) => new Browser(api).post('/password-resets/confirm', body), takesMaxima: false },
      { method: 'post', path: '/email-changes/undo', base: { token: 'nope' }, send: (body) => new Browser(api).post('/email-changes/undo', body), takesMaxima: false },
      // the wallet deletion's cancel link (decision 0041): public, a browser of its own per try (rule tokens)
      { method: 'post', path: '/wallet-changes/cancel', base: { token: 'nope' }, send: (body) => new Browser(api).post('/wallet-changes/cancel', body), takesMaxima: false },
      { method: 'post', path: '/me/email', base: { email: 'other@people.example', current_password: 'not the password' }, send: (body) => asPerson().post('/me/email', body), takesMaxima: false },
      { method: 'post', path: '/me/email/verify', base: { code: '123456' }, send: (body) => person.post('/me/email/verify', body), takesMaxima: false },
      { method: 'post', path: '/webhooks', base: { url: 'https://example.com/hook', event_types: ['payment.created'] }, send: (body) => shop.post('/webhooks', body), takesMaxima: true },
      {
        method: 'patch',
        path: '/webhooks/{id}',
        base: {},
        send: async (body) => {
          const created = await shop.post('/webhooks', { url: 'https://example.com/hook', event_types: ['payment.created'] });
          const answer = await shop.patch(`/webhooks/${created.body.data.id}`, body);
          await shop.call('DELETE', `/webhooks/${created.body.data.id}`);
          return answer;
        },
        takesMaxima: true,
      },
    );
  });

  afterAll(async () => {
    await accounts?.close();
  });

  it('the real app describes every body field with what its validator or use case checks (no finding)', () => {
    expect(describeApi(api.app, api.config, 'api/v1').findings).toEqual([]);
  });

  it('the operations tried here are every operation that takes a body', () => {
    const withBody = Object.entries(doc.paths).flatMap(([path, item]) => (['post', 'patch', 'put'] as const).filter((m) => item[m]?.requestBody && Object.keys(bodySchema(m, path).properties ?? {}).length > 0).map((m) => `${m} ${path}`));
    expect(operations.map((o) => `${o.method} ${o.path}`).sort()).toEqual(withBody.sort());
  });

  it('a body that breaks one documented rule of a field is refused with 400, a listed code, and that field', async () => {
    const refusedWrongly: string[] = [];
    let tried = 0;
    for (const op of operations) {
      const schema = bodySchema(op.method, op.path);
      const codes = errorCodes(op.method, op.path);
      for (const [field, fieldSchema] of Object.entries(schema.properties ?? {}) as [string, Schema][]) {
        for (const c of violations(fieldSchema)) {
          tried++;
          const answer = await op.send({ ...op.base, [field]: c.value });
          const error = answer.body?.error;
          const ok = answer.status === 400 && codes.includes(error?.code) && (error?.field === field || String(error?.field).startsWith(`${field}.`));
          if (!ok) refusedWrongly.push(`${op.method.toUpperCase()} ${op.path} ${field} ${c.what}: ${answer.status} ${JSON.stringify(error ?? answer.body)}`);
        }
      }
      for (const field of schema.required ?? []) {
        tried++;
        const without = { ...op.base };
        delete without[field];
        const answer = await op.send(without);
        if (answer.status !== 400 || answer.body.error.field !== field) refusedWrongly.push(`${op.method.toUpperCase()} ${op.path} without ${field}: ${answer.status} ${JSON.stringify(answer.body)}`);
      }
    }
    expect(refusedWrongly).toEqual([]);
    expect(tried).toBeGreaterThan(60);
  });

  it('a body exactly at a documented maximum is taken', async () => {
    const refused: string[] = [];
    let tried = 0;
    for (const op of operations.filter((o) => o.takesMaxima)) {
      const schema = bodySchema(op.method, op.path);
      for (const [field, fieldSchema] of Object.entries(schema.properties ?? {}) as [string, Schema][]) {
        for (const c of maxima(fieldSchema)) {
          tried++;
          const answer = await op.send({ ...op.base, [field]: c.value });
          if (answer.status >= 300) refused.push(`${op.method.toUpperCase()} ${op.path} ${field} ${c.what}: ${answer.status} ${JSON.stringify(answer.body)}`);
        }
      }
    }
    expect(refused).toEqual([]);
    expect(tried).toBeGreaterThan(10);
  });
});
