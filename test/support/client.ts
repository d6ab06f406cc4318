import { randomUUID } from 'node:crypto';
import { BusinessService, CreateKeyInput, CreatedBusiness } from '@lib/businesses';
import { TestApi } from './api-app';

/** A small HTTP client for the payment routes: JSON in, {status, body, headers} out. */
export interface Answer<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

/**
 * Each request comes from its own customer address (X-Forwarded-For, believed when the app runs
 * with TRUSTED_PROXIES=loopback) unless the client is pinned to one with `from(ip)`: per-IP rate
 * limits then apply per test, not to the whole file.
 */
let addresses = 0;
const nextAddress = () => {
  const n = ++addresses;
  return `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
};

export class Client {
  constructor(
    readonly api: TestApi,
    readonly key: string | null,
    readonly ip: string | null = null,
  ) {}

  from(ip: string): Client {
    return new Client(this.api, this.key, ip);
  }

  async call<T = any>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer<T>> {
    const response = await fetch(`${this.api.base}${path}`, {
      method,
      headers: {
        'x-forwarded-for': this.ip ?? nextAddress(),
        ...(this.key ? { authorization: `Bearer ${this.key}` } : {}),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : null, headers: response.headers };
  }

  get<T = any>(path: string) {
    return this.call<T>('GET', path);
  }

  post<T = any>(path: string, body?: unknown, headers: Record<string, string> = {}) {
    return this.call<T>('POST', path, body, headers);
  }

  /** POST with a fresh Idempotency-Key. */
  postOnce<T = any>(path: string, body?: unknown) {
    return this.call<T>('POST', path, body, { 'idempotency-key': randomUUID() });
  }

  patch<T = any>(path: string, body?: unknown) {
    return this.call<T>('PATCH', path, body);
  }

  as(key: string | null): Client {
    return new Client(this.api, key, this.ip);
  }

  // ------------------------------------------------------------ scenario steps

  /** POST `path`, which must answer 201 (asserted): the created object. */
  async created(path: string, body: unknown) {
    const answer = await this.post(path, body);
    expect(answer.status).toBe(201);
    return answer.body.data;
  }

  async createPayment(fields: Record<string, unknown> = {}) {
    const answer = await this.post('/payments', { amount: 10_000, currency: 'USD', description: 'Order 1', ...fields });
    if (answer.status !== 201) throw new Error(`create payment: ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer.body.data;
  }

  async openCheckout(payment: { url: string }, fields: Record<string, unknown> = {}) {
    const code = payment.url.split('/').pop()!;
    const answer = await this.postOnce('/checkouts', { payment_code: code, asset: 'USDC', network: 'ethereum', ...fields });
    if (answer.status !== 201) throw new Error(`open checkout: ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer.body.data;
  }

  async markSent(checkoutId: string, simulate?: string) {
    const answer = await this.post(`/checkouts/${checkoutId}/mark-sent`, simulate === undefined ? {} : { simulate });
    if (answer.status !== 200) throw new Error(`mark-sent: ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer.body.data;
  }

  async advance(seconds: number) {
    const answer = await this.post('/test_clock/advance', { seconds });
    if (answer.status !== 200) throw new Error(`advance: ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer.body.data;
  }

  /**
   * A new payment paid short (90 of 100 USDC, confirmed) whose held quote then ended: a remainder can
   * be requested (the business's test clock moves 30 s and then 16 minutes).
   */
  async underpaidQuoteEnded() {
    const payment = await this.createPayment();
    const checkout = await this.openCheckout(payment);
    await this.markSent(checkout.id, 'underpaid');
    await this.advance(30);
    await this.advance(16 * 60);
    return { payment, checkout };
  }

  async payment(id: string) {
    const answer = await this.get(`/payments/${id}`);
    if (answer.status !== 200) throw new Error(`get payment: ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer.body.data;
  }
}

/** The website and support e-mail `businessWithKey` gives a business unless told `contact: false`. */
/**
 * Each `[query, field]`: GET `path?query` answers 400 invalid_request naming `field` (a list's
 * limit, cursor or filter it cannot read). The failing query is named in the difference.
 */
export async function expectQueriesRefused(client: Client, path: string, cases: readonly (readonly [string, string])[]): Promise<void> {
  for (const [query, field] of cases) {
    const answer = await client.get(`${path}?${query}`);
    expect({ query, status: answer.status, code: answer.body.error?.code, field: answer.body.error?.field }).toEqual({ query, status: 400, code: 'invalid_request', field });
  }
}

/**
 * For each of `ids` (another business's, one that does not exist, one that is not an id), each
 * request `requests(id)` makes, one at a time, answers 404 not_found.
 */
export async function expectNotFoundEverywhere(ids: readonly string[], requests: (id: string) => (() => Promise<Answer>)[]): Promise<void> {
  for (const id of ids) {
    const answers: Answer[] = [];
    for (const request of requests(id)) answers.push(await request());
    expect(answers.map((a) => [a.status, a.body.error?.code])).toEqual(answers.map(() => [404, 'not_found']));
  }
}

/**
 * GET `path` in pages of two over a list of three (`ids`, created oldest first): newest first,
 * `has_more` on the first page, the second page the last. Answers the first page (its
 * next_cursor serves the checks that follow).
 */
export async function expectTwoPages(client: Client, path: string, ids: readonly string[]): Promise<Answer> {
  const first = await client.get(`${path}?limit=2`);
  expect(first.body.data.map((o: { id: string }) => o.id)).toEqual([ids[2], ids[1]]);
  expect(first.body.has_more).toBe(true);
  const second = await client.get(`${path}?limit=2&cursor=${first.body.next_cursor}`);
  expect(second.body).toMatchObject({ has_more: false, next_cursor: null });
  expect(second.body.data.map((o: { id: string }) => o.id)).toEqual([ids[0]]);
  return first;
}

export const SHOP_CONTACT = { website: 'https://shop.example', support_email: 'help@shop.example' };

/** A business as created by `businessWithKey`: its keys, and a client signed with its secret key. */
export type BusinessWithKey = CreatedBusiness & { client: Client };

/**
 * A business created on the running app, with its secret key and a `Client` signed with it.
 * `contact: false` creates it with its name alone (no website, no support e-mail).
 */
export async function businessWithKey(
  api: TestApi,
  simulated: boolean,
  name = simulated ? 'Sandbox' : 'Live Shop',
  { contact = true }: { contact?: boolean } = {},
): Promise<BusinessWithKey> {
  const created = await api.app.get(BusinessService).createBusiness({ name, simulated, ...(contact ? SHOP_CONTACT : {}) });
  return { ...created, client: new Client(api, created.secret_key) };
}

/** A `Client` signed with a new key of an existing business (a test key of a live business, a restricted key, ...). */
export async function clientWithNewKey(api: TestApi, input: CreateKeyInput): Promise<Client> {
  const created = await api.app.get(BusinessService).createKey(input);
  return new Client(api, created.secret);
}
