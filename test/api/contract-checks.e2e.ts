import { Contract, coveredUrl } from '../support/contract';
import { appPerSuite, startTestApi } from '../support/fixtures';

/**
 * The contract checks themselves (test/support/contract.ts, run on every answer by
 * test/support/contract-setup.ts): what they refuse, on the real app's document.
 */
describe('contract checks of answers against the served OpenAPI document', () => {
  const suite = appPerSuite(
    () => startTestApi(),
    async (api) => ({ contract: new Contract(await (await fetch(`${api.base}/openapi.json`)).json()) }),
  );
  const url = (path: string) => `${suite.api.base}${path}`;
  const json = (body: unknown) => JSON.stringify(body);
  const payment = {
    kind: 'payment',
    id: 'pmt_1',
    status: 'pending',
    amount: 2500,
    currency: 'USD',
    fee_payer: 'business',
    customer_fee: 0,
    amount_received: 0,
    reporting: { currency: 'USD', amount: 0, fee: 0, transaction_fee: 0, customer_fee: 0, net: 0 },
    fee_rate_bps: 100,
    method: null,
    settlement: null,
    customer_id: null,
    link_id: null,
    url: null,
    reference: null,
    metadata: {},
    success_url: null,
    cancel_url: null,
    expires_at: null,
    canceled_at: null,
    confirmed_at: null,
    checkout_id: null,
    description: null,
    country: null,
    failure_code: null,
    failure_message: null,
    created_at: '2026-11-25T10:00:00.000Z',
    updated_at: '2026-11-25T10:00:00.000Z',
    events: [{ type: 'created', created_at: '2026-11-25T10:00:00.000Z', data: null }],
  };
  const error = (code: string) => json({ error: { code, message: 'm', field: null, request_id: 'req_1' } });
  const check = (method: string, path: string, status: number, body: string, contentType: string | null = 'application/json; charset=utf-8') =>
    suite.contract.check({ method, url: url(path), status, contentType, body });

  it('covers the API of a test server, nothing else', () => {
    expect(coveredUrl(url('/payments?limit=2'))).toEqual({ origin: suite.api.base.replace('/api/v1', '') });
    expect(coveredUrl(`${suite.api.base.replace('/api/v1', '')}/docs`)).toBeNull();
    expect(coveredUrl('https://api.example.com/api/v1/payments')).toBeNull();
  });

  it('accepts answers that keep the document', () => {
    expect(check('GET', `/payments/pmt_1`, 200, json({ data: payment }))).toEqual([]);
    expect(check('GET', '/payments?limit=1', 200, json({ data: [payment], has_more: true, next_cursor: 'abc' }))).toEqual([]);
    expect(check('GET', '/payments', 200, json({ data: [], has_more: false, next_cursor: null }))).toEqual([]);
    expect(check('POST', '/payments', 409, error('reference_in_use'))).toEqual([]);
    expect(check('HEAD', '/payments/pmt_1', 200, '')).toEqual([]);
  });

  it('refuses a field the document does not name, a wrong type, a missing field, a bad timestamp', () => {
    expect(check('GET', '/payments/pmt_1', 200, json({ data: { ...payment, surprise: 1 } })).join()).toMatch(/must NOT have additional properties \(surprise\)/);
    expect(check('GET', '/payments/pmt_1', 200, json({ data: { ...payment, amount: '2500' } })).join()).toMatch(/\/data\/amount must be integer/);
    const { reporting: _dropped, ...missing } = payment;
    expect(check('GET', '/payments/pmt_1', 200, json({ data: missing })).join()).toMatch(/must have required property 'reporting'/);
    expect(check('GET', '/payments/pmt_1', 200, json({ data: { ...payment, created_at: 'yesterday' } })).join()).toMatch(/created_at must match format "date-time"/);
    expect(check('GET', '/payments', 200, json({ data: [payment], has_more: false })).join()).toMatch(/next_cursor/);
  });

  it('refuses an undocumented status, an error code the response does not list, a body that is not JSON', () => {
    expect(check('GET', '/payments/pmt_1', 418, error('not_found')).join()).toMatch(/status 418 is not documented for GET \/payments\/\{id\}/);
    expect(check('GET', '/payments/pmt_1', 404, error('link_not_found')).join()).toMatch(/error code link_not_found is not among the documented ones/);
    expect(check('GET', '/payments/pmt_1', 200, 'ok', 'text/plain').join()).toMatch(/documented as application\/json, got content-type text\/plain/);
  });

  it('lets a path no route serves answer only the error envelope, or an empty 405 where the path exists', () => {
    expect(check('GET', '/nowhere', 404, error('not_found'))).toEqual([]);
    expect(check('GET', '/nowhere', 200, json({ data: {} })).join()).toMatch(/no documented route answers GET on this path, yet it succeeded/);
    expect(check('GET', '/nowhere', 404, 'gone').join()).toMatch(/must answer the error envelope/);
    expect(check('PUT', '/payments', 405, '', null)).toEqual([]);
    expect(check('PUT', '/payments', 405, 'x').join()).toMatch(/a 405 is empty/);
  });
});
