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
        { type: 'CreateWebhookEndpoint', businessId: 'biz_1', url: 'https://a.example.com/h', eventTypes: ['payment.failed', 'payment.succeeded', 'payment.failed'], secretHint: 'h' },
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
      decideWebhookEndpoint({ type: 'CreateWebhookEndpoint', businessId: 'biz_1', url: 'https://a.example.com/h', eventTypes: ['*'], secretHint: 'h', ...fields }, given(), ctx);
    expect(refusal(create({ url: 'https://localhost/h' }))).toEqual({ code: 'invalid_request', field: 'url', status: 400 });
    expect(refusal(create({ eventTypes: ['payment.succeeded', 'nope'] }))).toMatchObject({ field: 'event_types.1' });
    expect(refusal(create({ eventTypes: ['*', 'payment.failed'] }))).toMatchObject({ field: 'event_types' });
    expect(refusal(create({ eventTypes: ['webhook.test'] }))).toMatchObject({ field: 'event_types.0' });
    const update = (fields: Partial<UpdateWebhookEndpoint>) => () =>
      decideWebhookEndpoint({ type: 'UpdateWebhookEndpoint', businessId: 'biz_1', webhookId: 'whk_1', ...fields }, given(created), ctx);
    expect(refusal(update({ url: 'https://169.254.169.254/x' }))).toEqual({ code: 'invalid_request', field: 'url', status: 400 });
    expect(refusal(update({ eventTypes: ['payment.failed', 'payment.exploded'] }))).toMatchObject({ field: 'event_types.1' });
  });

  it('records only what changes; an unchanged PATCH records nothing', () => {
    const state = given(created);
    const update = (fields: Record<string, unknown>) => decideWebhookEndpoint({ type: 'UpdateWebhookEndpoint', businessId: 'biz_1', webhookId: 'whk_1', ...fields }, state, ctx);
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
      expect(refusal(() => decideWebhookEndpoint({ type: 'UpdateWebhookEndpoint', businessId, webhookId: 'whk_1', enabled: true }, state, ctx)).code).toBe('not_found');
    }
  });

  it('rotation records the new hint and the end of the grace period; the view follows the events', () => {
    const rotated = decideWebhookEndpoint(
      { type: 'RotateWebhookSecret', businessId: 'biz_1', webhookId: 'whk_1', secretHint: 'whsec_••••BBBB', previousSecretExpiresAt: new Date('2030-01-02T00:00:00Z') },
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
