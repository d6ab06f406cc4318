import { BUSINESS_STREAM } from '@lib/businesses';
import { assertDistinctCategories } from '@lib/eventstore';
import { ALL_STREAM_CATEGORIES } from '@lib/wiring';
import { WEBHOOK_STREAM, WEBHOOK_STREAM_CATEGORIES, asWebhookEndpointEvent, isWebhookId } from '../../libs/webhooks/src';

describe('webhook stream names, built and parsed by WEBHOOK_STREAM only', () => {
  it('webhook-<whk_id>: builds, parses, and owns nothing else', () => {
    expect(WEBHOOK_STREAM.stream('whk_abc123')).toBe('webhook-whk_abc123');
    expect(WEBHOOK_STREAM.parse('webhook-whk_abc123')).toBe('whk_abc123');
    expect(WEBHOOK_STREAM.owns('webhook-nope')).toBe(false);
    expect(WEBHOOK_STREAM.owns('webhooks-whk_abc123')).toBe(false);
    expect(WEBHOOK_STREAM.owns('business-biz_abc123')).toBe(false);
    expect(() => WEBHOOK_STREAM.stream('whk_a-b')).toThrow();
    expect([isWebhookId('whk_abc123'), isWebhookId('whk_'), isWebhookId('not-an-id')]).toEqual([true, false, false]);
  });

  it('an endpoint event of another stream is not read as one', () => {
    const event = { type: 'WebhookEndpointDeleted', data: { webhook_id: 'whk_1' } };
    expect(asWebhookEndpointEvent({ ...event, stream: 'webhook-whk_1' })).toEqual(event);
    expect(asWebhookEndpointEvent({ ...event, stream: 'business-biz_1' })).toBeNull();
    expect(asWebhookEndpointEvent({ ...event, type: 'WebhookEndpointExploded', stream: 'webhook-whk_1' })).toBeNull();
  });

  it('the composition root lists the business and webhook categories, none a prefix of another', () => {
    expect(ALL_STREAM_CATEGORIES).toEqual(expect.arrayContaining([BUSINESS_STREAM, ...WEBHOOK_STREAM_CATEGORIES]));
    expect(() => assertDistinctCategories(ALL_STREAM_CATEGORIES)).not.toThrow();
    expect(new Set(ALL_STREAM_CATEGORIES.map((c) => c.name)).size).toBe(ALL_STREAM_CATEGORIES.length);
  });
});
