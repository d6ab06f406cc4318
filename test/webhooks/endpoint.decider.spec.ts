import {
  CreateWebhookEndpoint,
  UpdateWebhookEndpoint,
  WebhookDecideContext,
  WebhookEndpointEvent,
  WebhookEndpointState,
  decideWebhookEndpoint,
  foldWebhookEndpoint,
  webhookEndpointView,
  WebhookEndpointRows,
} from '../../libs/webhooks/src';

const ctx: WebhookDecideContext = { urlPolicy: { allowPrivate: false }, ids: { webhook: () => 'whk_1' } };
const created: WebhookEndpointEvent = {
  type: 'WebhookEndpointCreated',
  data: { webhook_id: 'whk_1', business_id: 'biz_1', url: 'https://a.example.com/h', description: '', event_types: ['payment.succeeded'], enabled: true, secret_hint: 'whsec_••••AAAA' },
};
const given = (...events: WebhookEndpointEvent[]): WebhookEndpointState => foldWebhookEndpoint(events);
const refusal = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    const e = error as { code: string; field: string | null; status: number };
    return { code: e.code, field: e.field, status: e.status };
  }
  throw new Error('not refused');
};

describe('webhook endpoint decider (given events, when command, then events)', () => {
  it('creates an endpoint with defaults: enabled, empty description, types in catalog order', () => {
    expect(
      decideWebhookEndpoint(
        { type: 'CreateWebhookEndpoint', businessId: 'biz_1', url: 'https://a.example.com/h', eventTypes: ['payment.failed', 'payment.succeeded', 'payment.failed'], secretHint: 'h', readable: null },
        given(),
        ctx,
      ),
    ).toEqual([
      {
        type: 'WebhookEndpointCreated',
        data: { webhook_id: 'whk_1', business_id: 'biz_1', url: 'https://a.example.com/h', description: '', event_types: ['payment.succeeded', 'payment.failed'], enabled: true, secret_hint: 'h' },
      },
    ]);
  });

  // the input's shape (an empty event_types, a description that is not a string, enabled that is
  // not a boolean) is the DTOs' to refuse: test/webhooks/endpoint-inputs.spec.ts
  it('refuses what the rules refuse, naming the field', () => {
    const create = (fields: Partial<CreateWebhookEndpoint>) => () =>
      decideWebhookEndpoint({ type: 'CreateWebhookEndpoint', businessId: 'biz_1', url: 'https://a.example.com/h', eventTypes: ['*'], secretHint: 'h', readable: null, ...fields }, given(), ctx);
    expect(refusal(create({ url: 'https://localhost/h' }))).toEqual({ code: 'invalid_request', field: 'url', status: 400 });
    expect(refusal(create({ eventTypes: ['payment.succeeded', 'nope'] }))).toMatchObject({ field: 'event_types.1' });
    expect(refusal(create({ eventTypes: ['*', 'payment.failed'] }))).toMatchObject({ field: 'event_types' });
    expect(refusal(create({ eventTypes: ['webhook.test'] }))).toMatchObject({ field: 'event_types.0' });
    const update = (fields: Partial<UpdateWebhookEndpoint>) => () =>
      decideWebhookEndpoint({ type: 'UpdateWebhookEndpoint', businessId: 'biz_1', webhookId: 'whk_1', readable: null, ...fields }, given(created), ctx);
    expect(refusal(update({ url: 'https://169.254.169.254/x' }))).toEqual({ code: 'invalid_request', field: 'url', status: 400 });
    expect(refusal(update({ eventTypes: ['payment.failed', 'payment.exploded'] }))).toMatchObject({ field: 'event_types.1' });
  });

  // decision 0013, addendum of 2026-11-29: a restricted key (its readable segments) subscribes and manages only what it can read
  it('a key subscribes only to types it reads, and changes or rotates only an endpoint whose types it reads', () => {
    const payments = ['payment', 'webhook'];
    const everything = ['payment', 'checkout', 'customer', 'link', 'business', 'webhook', 'wallet', 'wallet_transaction', 'wallet_change'];
    const create = (eventTypes: string[], readable: string[] | null) => () =>
      decideWebhookEndpoint({ type: 'CreateWebhookEndpoint', businessId: 'biz_1', url: 'https://a.example.com/h', eventTypes, secretHint: 'h', readable }, given(), ctx);
    expect(refusal(create(['*'], payments))).toEqual({ code: 'permission_denied', field: 'event_types', status: 403 });
    expect(refusal(create(['payment.succeeded', 'customer.created'], payments))).toEqual({ code: 'permission_denied', field: 'event_types', status: 403 });
    expect(refusal(create(['payment.succeeded'], []))).toEqual({ code: 'permission_denied', field: 'event_types', status: 403 });
    expect(create(['payment.succeeded', 'payment.failed'], payments)()).toHaveLength(1);
    expect(create(['*'], everything)()).toHaveLength(1);
    expect(create(['*'], null)()).toHaveLength(1);
    // the catalogue's 400 comes first
    expect(refusal(create(['payment.exploded'], []))).toMatchObject({ code: 'invalid_request', field: 'event_types.0' });

    const all = given({ ...created, data: { ...created.data, event_types: ['*'] } });
    const update = (state: WebhookEndpointState, fields: Partial<UpdateWebhookEndpoint>, readable: string[] | null) => () =>
      decideWebhookEndpoint({ type: 'UpdateWebhookEndpoint', businessId: 'biz_1', webhookId: 'whk_1', readable, ...fields }, state, ctx);
    expect(refusal(update(all, { url: 'https://b.example.com/h' }, payments))).toEqual({ code: 'permission_denied', field: null, status: 403 });
    expect(refusal(update(all, { eventTypes: ['payment.succeeded'] }, payments))).toEqual({ code: 'permission_denied', field: null, status: 403 });
    expect(refusal(update(all, {}, payments))).toMatchObject({ code: 'permission_denied' });
    expect(refusal(update(given(created), { eventTypes: ['customer.created'] }, payments))).toEqual({ code: 'permission_denied', field: 'event_types', status: 403 });
    expect(update(given(created), { url: 'https://b.example.com/h' }, payments)()).toHaveLength(1);
    expect(update(all, { url: 'https://b.example.com/h' }, null)()).toHaveLength(1);
    // another business's endpoint stays 404, not 403
    expect(refusal(() => decideWebhookEndpoint({ type: 'UpdateWebhookEndpoint', businessId: 'biz_2', webhookId: 'whk_1', readable: [] }, all, ctx)).code).toBe('not_found');

    const rotate = (state: WebhookEndpointState, readable: string[] | null) => () =>
      decideWebhookEndpoint({ type: 'RotateWebhookSecret', businessId: 'biz_1', webhookId: 'whk_1', secretHint: 'x', previousSecretExpiresAt: new Date(0), readable }, state, ctx);
    expect(refusal(rotate(all, payments))).toEqual({ code: 'permission_denied', field: null, status: 403 });
    expect(rotate(given(created), payments)()).toHaveLength(1);
    // deleting stays open to webhooks:write (it sends nothing anywhere)
    expect(decideWebhookEndpoint({ type: 'DeleteWebhookEndpoint', businessId: 'biz_1', webhookId: 'whk_1' }, all, ctx)).toHaveLength(1);
  });

  it('records only what changes; an unchanged PATCH records nothing', () => {
    const state = given(created);
    const update = (fields: Record<string, unknown>) => decideWebhookEndpoint({ type: 'UpdateWebhookEndpoint', businessId: 'biz_1', webhookId: 'whk_1', readable: null, ...fields }, state, ctx);
    expect(update({ enabled: false, url: 'https://a.example.com/h' })).toEqual([{ type: 'WebhookEndpointUpdated', data: { webhook_id: 'whk_1', enabled: false } }]);
    expect(update({ eventTypes: ['payment.succeeded'], description: '' })).toEqual([]);
    expect(update({})).toEqual([]);
  });

  it('treats a deleted endpoint, or another business’s, as not found', () => {
    const deleted = given(created, { type: 'WebhookEndpointDeleted', data: { webhook_id: 'whk_1' } });
    for (const [state, businessId] of [
      [deleted, 'biz_1'],
      [given(created), 'biz_2'],
      [given(), 'biz_1'],
    ] as [WebhookEndpointState, string][]) {
      expect(refusal(() => decideWebhookEndpoint({ type: 'DeleteWebhookEndpoint', businessId, webhookId: 'whk_1' }, state, ctx))).toEqual({
        code: 'not_found',
        field: null,
        status: 404,
      });
      expect(refusal(() => decideWebhookEndpoint({ type: 'UpdateWebhookEndpoint', businessId, webhookId: 'whk_1', enabled: true, readable: null }, state, ctx)).code).toBe('not_found');
    }
  });

  it('rotation records the new hint and the end of the grace period; the view follows the events', () => {
    const rotated = decideWebhookEndpoint(
      { type: 'RotateWebhookSecret', businessId: 'biz_1', webhookId: 'whk_1', secretHint: 'whsec_••••BBBB', previousSecretExpiresAt: new Date('2030-01-02T00:00:00Z'), readable: null },
      given(created),
      ctx,
    );
    expect(rotated).toEqual([{ type: 'WebhookSecretRotated', data: { webhook_id: 'whk_1', secret_hint: 'whsec_••••BBBB', previous_secret_expires_at: '2030-01-02T00:00:00.000Z' } }]);
    const at = (s: number) => new Date(Date.UTC(2030, 0, 1, 0, 0, s));
    const rows = WebhookEndpointRows.of([
      { ...created, recordedAt: at(0) },
      { type: 'WebhookEndpointUpdated', data: { webhook_id: 'whk_1', description: 'x' }, recordedAt: at(1) },
      { ...rotated[0], recordedAt: at(2) },
    ]);
    expect(webhookEndpointView(rows.endpoints.get('whk_1')!)).toEqual({
      kind: 'webhook',
      id: 'whk_1',
      url: 'https://a.example.com/h',
      description: 'x',
      event_types: ['payment.succeeded'],
      enabled: true,
      secret_hint: 'whsec_••••BBBB',
      created_at: at(0).toISOString(),
      updated_at: at(2).toISOString(),
    });
  });
});
