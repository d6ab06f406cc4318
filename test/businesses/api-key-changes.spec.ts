import { BusinessCommand, BusinessEvent, BusinessRows, DecideContext, DomainError, decide, foldBusiness } from '@lib/businesses';
import { givenFolded } from '../support/decider-spec';

/**
 * The business decider's key changes (decision 0039), given/when/then: UpdateApiKey (name, a
 * restricted key's grants) and RollApiKey (a new secret's hash), and what BusinessRows — the
 * projection's fold — makes of them.
 */
const given = givenFolded({ fold: foldBusiness, decide }, DomainError, (): DecideContext => ({ now: new Date('2026-01-02T03:04:05.678Z'), ids: { business: () => 'biz_1', key: () => 'key_new' } }));

const HASH = 'a'.repeat(64);
const created: BusinessEvent = { type: 'BusinessCreated', data: { business_id: 'biz_1', name: 'Acme', simulated: false, website: null, support_email: null } };
const key = (key_id: string, kind: 'secret' | 'publishable' | 'restricted', name: string | null = null): BusinessEvent => ({
  type: 'ApiKeyCreated',
  data: { key_id, business_id: 'biz_1', kind, mode: 'live', secret_hash: 'b'.repeat(64), prefix: `${kind[0]}k_live_`, last4: 'zzzz', name, permissions: kind === 'restricted' ? { payments: 'read' } : null },
});
const revoked = (key_id: string): BusinessEvent => ({ type: 'ApiKeyRevoked', data: { key_id } });
/** A change from a caller that stepped up, unless `steppedUp: false` says otherwise. */
const update = (keyId: string, change: { name?: string | null; permissions?: Record<string, string>; steppedUp?: boolean }): BusinessCommand =>
  ({ type: 'UpdateApiKey', businessId: 'biz_1', keyId, steppedUp: true, ...change }) as BusinessCommand;
const roll = (keyId: string, secretHash = HASH, last4 = 'Ab12'): BusinessCommand => ({ type: 'RollApiKey', businessId: 'biz_1', keyId, secretHash, last4 });

describe('business decider: UpdateApiKey', () => {
  it('renames a secret key', () => given([created, key('key_1', 'secret')]).when(update('key_1', { name: 'Server' })).then([{ type: 'ApiKeyUpdated', data: { key_id: 'key_1', name: 'Server' } }]));

  it('clears a name with null', () => given([created, key('key_1', 'secret', 'Old')]).when(update('key_1', { name: null })).then([{ type: 'ApiKeyUpdated', data: { key_id: 'key_1', name: null } }]));

  it('replaces a restricted key’s grants whole, in the stable resource order', () =>
    given([created, key('key_1', 'restricted')])
      .when(update('key_1', { permissions: { webhooks: 'read', customers: 'write' } }))
      .then([{ type: 'ApiKeyUpdated', data: { key_id: 'key_1', permissions: { customers: 'write', webhooks: 'read' } } }]));

  it('records nothing when nothing changes (same name, same grants, empty change)', () => {
    given([created, key('key_1', 'restricted', 'Same')]).when(update('key_1', { name: 'Same', permissions: { payments: 'read' } })).then([]);
    given([created, key('key_1', 'secret')]).when(update('key_1', {})).then([]);
  });

  it('sees earlier changes: renaming back to the name before is a change again', () =>
    given([created, key('key_1', 'secret', 'A'), { type: 'ApiKeyUpdated', data: { key_id: 'key_1', name: 'B' } }])
      .when(update('key_1', { name: 'A' }))
      .then([{ type: 'ApiKeyUpdated', data: { key_id: 'key_1', name: 'A' } }]));

  it('refuses a publishable key: 409 publishable_key, whatever is sent', () => {
    given([created, key('key_1', 'publishable')]).when(update('key_1', { name: 'x' })).thenRefused('publishable_key', null, /no name or permissions to change/);
    given([created, key('key_1', 'publishable')]).when(update('key_1', {})).thenRefused('publishable_key');
  });

  it('refuses a revoked key: 409 api_key_revoked (before the publishable rule)', () => {
    given([created, key('key_1', 'secret'), revoked('key_1')]).when(update('key_1', { name: 'x' })).thenRefused('api_key_revoked', null, /cannot be changed/);
    given([created, key('key_1', 'publishable'), revoked('key_1')]).when(update('key_1', { name: 'x' })).thenRefused('api_key_revoked');
  });

  it('refuses grants on a secret key and empty grants on a restricted one', () => {
    given([created, key('key_1', 'secret')]).when(update('key_1', { permissions: { payments: 'read' } })).thenRefused('invalid_request', 'permissions', /restricted key/);
    given([created, key('key_1', 'restricted')]).when(update('key_1', { permissions: {} })).thenRefused('invalid_request', 'permissions', /at least one/);
  });

  describe('giving a key more access needs a step-up (spec §5.6; decision 0039 addendum)', () => {
    const restricted: BusinessEvent = { ...key('key_1', 'restricted'), data: { ...key('key_1', 'restricted').data, permissions: { payments: 'read', customers: 'write' } } } as BusinessEvent;

    it('refuses a grant added or raised without a step-up: 403 step_up_required naming what it would add, nothing recorded (a name sent with it included)', () => {
      given([created, restricted])
        .when(update('key_1', { permissions: { payments: 'read', customers: 'write', wallet: 'write', business: 'read' }, steppedUp: false }))
        .thenRefused('step_up_required', null, /more access \(wallet:write,business:read\).*POST \/sessions\/current\/step-up/);
      given([created, restricted]).when(update('key_1', { permissions: { payments: 'write', customers: 'write' }, steppedUp: false })).thenRefused('step_up_required', null, /\(payments:write\)/);
      given([created, restricted]).when(update('key_1', { name: 'Wider', permissions: { links: 'read' }, steppedUp: false })).thenRefused('step_up_required', null, /\(links:read\)/);
    });

    it('lets a narrowing, a rename or the same grants through without one', () => {
      given([created, restricted])
        .when(update('key_1', { permissions: { payments: 'read', customers: 'read' }, steppedUp: false }))
        .then([{ type: 'ApiKeyUpdated', data: { key_id: 'key_1', permissions: { payments: 'read', customers: 'read' } } }]);
      given([created, restricted]).when(update('key_1', { permissions: { customers: 'write' }, steppedUp: false })).then([{ type: 'ApiKeyUpdated', data: { key_id: 'key_1', permissions: { customers: 'write' } } }]);
      given([created, restricted]).when(update('key_1', { name: 'Renamed', steppedUp: false })).then([{ type: 'ApiKeyUpdated', data: { key_id: 'key_1', name: 'Renamed' } }]);
      given([created, restricted]).when(update('key_1', { permissions: { customers: 'write', payments: 'read' }, steppedUp: false })).then([]);
    });

    it('widens with one', () =>
      given([created, restricted])
        .when(update('key_1', { permissions: { payments: 'write', wallet: 'write' }, steppedUp: true }))
        .then([{ type: 'ApiKeyUpdated', data: { key_id: 'key_1', permissions: { payments: 'write', wallet: 'write' } } }]));

    it('answers the key’s own refusals first (not found, revoked, a secret key’s grants)', () => {
      given([created, restricted]).when(update('key_2', { permissions: { wallet: 'write' }, steppedUp: false })).thenRefused('not_found');
      given([created, restricted, revoked('key_1')]).when(update('key_1', { permissions: { wallet: 'write' }, steppedUp: false })).thenRefused('api_key_revoked');
      given([created, key('key_2', 'secret')]).when(update('key_2', { permissions: { wallet: 'write' }, steppedUp: false })).thenRefused('invalid_request', 'permissions');
    });
  });

  it('refuses unknown keys, inherited property names included, as not found', () => {
    given([created, key('key_1', 'secret')]).when(update('key_2', { name: 'x' })).thenRefused('not_found');
    given([created]).when(update('__proto__', { name: 'x' })).thenRefused('not_found');
    given([]).when(update('key_1', { name: 'x' })).thenRefused('not_found');
  });
});

describe('business decider: RollApiKey', () => {
  it('records the new secret’s hash and last 4 only', () => given([created, key('key_1', 'restricted')]).when(roll('key_1')).then([{ type: 'ApiKeyRolled', data: { key_id: 'key_1', secret_hash: HASH, last4: 'Ab12' } }]));

  it('rolls a publishable key too', () => given([created, key('key_1', 'publishable')]).when(roll('key_1')).then([{ type: 'ApiKeyRolled', data: { key_id: 'key_1', secret_hash: HASH, last4: 'Ab12' } }]));

  it('refuses a revoked key and an unknown one', () => {
    given([created, key('key_1', 'secret'), revoked('key_1')]).when(roll('key_1')).thenRefused('api_key_revoked');
    given([created]).when(roll('key_1')).thenRefused('not_found');
  });

  it('never takes a key in clear where its hash belongs', () => given([created, key('key_1', 'secret')]).when(roll('key_1', 'sk_live_' + 'x'.repeat(32))).thenThrows(/sha256 hex/));
});

describe('BusinessRows (the projection’s fold) with key changes', () => {
  const at = new Date('2026-01-02T00:00:00Z');
  const rec = (event: BusinessEvent) => ({ ...event, stream: 'business-biz_1', recordedAt: at });

  it('applies changes to keys created in the same batch', () => {
    const rows = BusinessRows.of([rec(created), rec(key('key_1', 'restricted', 'A')), rec({ type: 'ApiKeyUpdated', data: { key_id: 'key_1', permissions: { links: 'write' } } }), rec({ type: 'ApiKeyRolled', data: { key_id: 'key_1', secret_hash: HASH, last4: 'Ab12' } })]);
    expect(rows.keys.get('key_1')).toMatchObject({ name: 'A', permissions: { links: 'write' }, secret_hash: HASH, last4: 'Ab12' });
    expect(rows.keyChanges.size).toBe(0);
  });

  it('merges changes to keys created before the batch, in order, for the UPDATE', () => {
    const rows = BusinessRows.of([
      rec({ type: 'ApiKeyUpdated', data: { key_id: 'key_1', name: 'A' } }),
      rec({ type: 'ApiKeyRolled', data: { key_id: 'key_1', secret_hash: HASH, last4: 'Ab12' } }),
      rec({ type: 'ApiKeyUpdated', data: { key_id: 'key_1', name: null } }),
    ]);
    expect(rows.keyChanges.get('key_1')).toEqual({ name: null, secret_hash: HASH, last4: 'Ab12' });
  });
});
