import { RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA, ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import { ModulesContainer } from '@nestjs/core';
import { Browser, startAccountsApp, steppedUpOwner } from '../accounts/support';
import { TestApi, appPerSuite, businessWithKey } from '../support/fixtures';

/**
 * A body must be a JSON object (spec §7: 400 invalid_request, the §7 envelope): `null`, an array,
 * a string, a number or a boolean as the whole body is refused on every route that takes a body,
 * on an object the route would otherwise change, and nothing changes. The routes are listed here
 * and checked against every controller handler with a @Body() parameter, so a new body-taking
 * route has to be added to the list.
 */
const BODY_ROUTES = [
  'POST /payments',
  'PATCH /payments/:id',
  'POST /test_clock/advance',
  'POST /checkouts',
  'POST /checkouts/:id/claim',
  'POST /checkouts/:id/mark-sent',
  'POST /webhooks',
  'PATCH /webhooks/:id',
  'POST /wallet',
  'PATCH /checkout-settings',
  'PATCH /businesses/:id',
  'POST /businesses/:id/alert-email/confirm',
  'POST /customers',
  'PATCH /customers/:id',
  'POST /links',
  'PATCH /links/:id',
  'POST /checkouts/:id/card-attempts',
  'POST /accounts',
  'POST /accounts/verify',
  'POST /accounts/verify/resend',
  'POST /accounts/passkey-options',
  'POST /sessions',
  'POST /me/password',
  'POST /sessions/two-factor',
  'POST /me/two-factor',
  'POST /me/two-factor/disable',
  'POST /me/passkeys',
  'POST /passkeys/authentication/verify',
  'POST /sessions/current/step-up',
  'POST /me/email',
  'POST /me/email/verify',
  'POST /email-changes/undo',
  'POST /wallet-changes/cancel',
  'POST /password-resets',
  'POST /password-resets/check',
  'POST /password-resets/confirm',
  'POST /wallet/transactions',
  'POST /api-keys',
  'PATCH /api-keys/:id',
  'POST /businesses',
] as const;

const NOT_OBJECTS = ['null', ' null\n', '[]', '[{}]', '[{"metadata":null}]', '"x"', '""', '"{}"', '1', '0', '-1.5', 'true', 'false'];

/** The routes whose handlers take @Body(), from the controllers Nest registered. */
function bodyRoutes(api: TestApi): string[] {
  const found: string[] = [];
  for (const module of api.app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const type = wrapper.metatype as (new (...args: unknown[]) => unknown) | null;
      if (!type?.prototype) continue;
      const base = String(Reflect.getMetadata(PATH_METADATA, type) ?? '');
      for (const name of Object.getOwnPropertyNames(type.prototype)) {
        const handler = (type.prototype as Record<string, unknown>)[name];
        if (name === 'constructor' || typeof handler !== 'function') continue;
        const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, type, name) ?? {}) as Record<string, unknown>;
        if (!Object.keys(args).some((key) => key.split(':')[0] === String(RouteParamtypes.BODY))) continue;
        const method = RequestMethod[Reflect.getMetadata(METHOD_METADATA, handler) as number];
        const path = String(Reflect.getMetadata(PATH_METADATA, handler) ?? '');
        found.push(`${method} /${[base, path].filter((p) => p && p !== '/').join('/')}`);
      }
    }
  }
  return found.sort();
}

describe('a body must be a JSON object on every route that takes one (spec §7)', () => {
  const ids: Record<string, string> = {};
  let person: Browser;
  let personBusiness = '';
  const suite = appPerSuite(
    // the accounts capability with a real SMTP server: POST /me/password needs a signed-in person
    async () => {
      const accounts = await startAccountsApp('embedded');
      // POST /me/passkeys (decision 0037) and creating a key (decision 0039) need a step-up; the key routes' ids are the person's business's
      ({ b: person, businessId: personBusiness } = await steppedUpOwner(accounts));
      ids.apiKey = (await person.get('/api-keys', { 'service-business': personBusiness })).body.data[0].id;
      return { ...accounts.api, close: accounts.close };
    },
    async (api) => {
      const shop = await businessWithKey(api, true, 'Body Shop', { contact: false });
      const client = shop.client;
      ids.business = shop.business.id;
      const payment = await client.createPayment({ metadata: { order: '1' } });
      ids.payment = payment.id;
      ids.code = payment.url.split('/').pop()!;
      // an open checkout (set aside, so no simulated transfer arrives by itself) and a canceled one (claimable)
      ids.open = (await client.openCheckout(payment)).id;
      expect((await client.post(`/checkouts/${ids.open}/supersede`)).status).toBe(200);
      ids.canceled = (await client.openCheckout(payment, { asset: 'USDT' })).id;
      expect((await client.post(`/checkouts/${ids.canceled}/cancel`)).status).toBe(200);
      ids.webhook = (await client.created('/webhooks', { url: 'https://hooks.example.com/in', event_types: ['payment.succeeded'] })).id;
      ids.customer = (await client.created('/customers', { email: 'ann@example.com', name: 'Ann' })).id;
      ids.link = (await client.created('/links', { name: 'Mug', amount: 1500, currency: 'USD' })).id;
      // a card checkout waiting for its first attempt
      const card = await client.postOnce('/checkouts', { payment_code: (await client.createPayment()).url.split('/').pop(), rail: 'card', email: 'ann@example.com', country: 'US' });
      expect(card.status).toBe(201);
      ids.card = card.body.data.id;
      return { shop, client };
    },
  );

  const pathOf = (route: string): string => {
    const [, path] = route.split(' ');
    if (path.startsWith('/payments/')) return path.replace(':id', ids.payment);
    if (path.endsWith('/claim')) return path.replace(':id', ids.canceled);
    if (path.endsWith('/card-attempts')) return path.replace(':id', ids.card);
    if (path.startsWith('/customers/')) return path.replace(':id', ids.customer);
    if (path.startsWith('/links/')) return path.replace(':id', ids.link);
    if (path.startsWith('/checkouts/')) return path.replace(':id', ids.open);
    if (path.startsWith('/webhooks/')) return path.replace(':id', ids.webhook);
    if (path.startsWith('/businesses/')) return path.replace(':id', ids.business);
    if (path.startsWith('/api-keys/')) return path.replace(':id', ids.apiKey);
    return path;
  };

  /** Everything the routes above could change. */
  const snapshot = async () => ({
    payment: (await suite.client.get(`/payments/${ids.payment}`)).body.data,
    open: (await suite.client.get(`/checkouts/${ids.open}`)).body.data,
    canceled: (await suite.client.get(`/checkouts/${ids.canceled}`)).body.data,
    webhook: (await suite.client.get(`/webhooks/${ids.webhook}`)).body.data,
    webhooks: (await suite.client.get('/webhooks')).body.data.length,
    payments: (await suite.client.get('/payments')).body.data.length,
    clock: (await suite.client.get('/test_clock')).body.data.offset_seconds,
    settings: (await suite.client.get('/checkout-settings')).body.data,
    customers: (await suite.client.get('/customers')).body.data,
    links: (await suite.client.get('/links')).body.data,
    card: (await suite.client.get(`/checkouts/${ids.card}`)).body.data,
    business: (await suite.client.get('/business')).body.data,
  });

  it('lists every route whose handler takes a body', () => {
    expect(bodyRoutes(suite.api)).toEqual([...BODY_ROUTES].sort());
  });

  for (const route of BODY_ROUTES) {
    it(`${route}: null, arrays, strings, numbers and booleans as the whole body → 400 invalid_request; nothing changes`, async () => {
      const before = await snapshot();
      const [method] = route.split(' ');
      const problems: string[] = [];
      for (const body of NOT_OBJECTS) {
        const response = await fetch(`${suite.api.base}${pathOf(route)}`, {
          method,
          // a person's own route takes their session cookie (an API key there is 403 session_required)
          headers: {
            ...(route === 'POST /wallet/transactions' || route.includes(' /api-keys')
              ? // a dashboard-only route: the session of a person acting for their business
                { cookie: [...person.jar].map(([k, v]) => `${k}=${v}`).join('; '), 'service-business': personBusiness }
              : route.startsWith('POST /me/') || route.startsWith('POST /sessions/current/') || route.startsWith('POST /businesses')
                ? // from an address per route: the person's routes share small per-IP limits (me.sensitive)
                  { cookie: [...person.jar].map(([k, v]) => `${k}=${v}`).join('; '), 'x-forwarded-for': `172.31.${BODY_ROUTES.indexOf(route)}.1` }
                : { authorization: `Bearer ${suite.shop.secret_key}` }),
            'content-type': 'application/json',
            'idempotency-key': `k-${Math.random()}`,
          },
          body,
        });
        const text = await response.text();
        const parsed = text ? (JSON.parse(text) as { error?: { code: string; field: string | null; request_id: string; message: string } }) : null;
        const error = parsed?.error;
        const ok =
          response.status === 400 &&
          error?.code === 'invalid_request' &&
          error.field === null &&
          typeof error.message === 'string' &&
          error.request_id === response.headers.get('service-request-id') &&
          Object.keys(parsed!).join() === 'error';
        if (!ok) problems.push(`${JSON.stringify(body)}: ${response.status} ${text.slice(0, 200)}`);
      }
      expect(problems).toEqual([]);
      expect(await snapshot()).toEqual(before);
    });
  }

  it('an object body (and no body where none is needed) still works', async () => {
    expect((await suite.client.patch(`/payments/${ids.payment}`, { metadata: { order: '2' } })).body.data.metadata).toEqual({ order: '2' });
    expect((await suite.client.post(`/checkouts/${ids.open}/mark-sent`)).body.data.status).toBe('confirming');
  });
});
