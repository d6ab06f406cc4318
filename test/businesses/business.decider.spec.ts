import {
  BusinessCommand,
  BusinessEvent,
  DecideContext,
  DomainError,
  DEFAULT_CHECKOUT_SETTINGS,
  decide,
  decideAll,
  evolve,
  foldBusiness,
  initialBusinessState,
} from '@lib/businesses';
import { givenFolded } from '../support/decider-spec';

/** Emmett-style specification: given these events, when this command, then these events (or this error). */
const given = givenFolded({ fold: foldBusiness, decide }, DomainError, () => context());

function context(): DecideContext {
  return { now: new Date('2026-01-02T03:04:05.678Z'), ids: { business: () => 'biz_1', key: () => 'key_1' } };
}

const HASH = 'a'.repeat(64);
const HASH2 = 'b'.repeat(64);

const created = (simulated = false): BusinessEvent => ({
  type: 'BusinessCreated',
  data: { business_id: 'biz_1', name: 'Acme', simulated, website: null, support_email: null },
});
const keyCreated = (key_id: string, kind: 'secret' | 'publishable' | 'restricted' = 'secret', mode: 'live' | 'test' = 'live'): BusinessEvent => ({
  type: 'ApiKeyCreated',
  data: {
    key_id,
    business_id: 'biz_1',
    kind,
    mode,
    secret_hash: HASH2,
    prefix: `${kind[0]}k_${mode}_`,
    last4: 'zzzz',
    name: null,
    permissions: kind === 'restricted' ? { payments: 'read' } : null,
  },
});
const revoked = (key_id: string): BusinessEvent => ({ type: 'ApiKeyRevoked', data: { key_id } });
const suspended = (suspended_at = '2026-01-01T00:00:00.000Z'): BusinessEvent => ({ type: 'BusinessSuspended', data: { business_id: 'biz_1', suspended_at, reason: 'Chargebacks' } });
const reinstated = (): BusinessEvent => ({ type: 'BusinessReinstated', data: { business_id: 'biz_1' } });

// The input's shape (texts trimmed and within their lengths, a boolean `simulated`, known key
// types and modes) is the use cases' DTOs' to check: test/businesses/inputs.spec.ts.
describe('business decider: CreateBusiness', () => {
  it('creates a business with the id from the context', () =>
    given([])
      .when({ type: 'CreateBusiness', name: 'Acme', simulated: true, website: 'https://acme.test', supportEmail: null })
      .then([
        { type: 'BusinessCreated', data: { business_id: 'biz_1', name: 'Acme', simulated: true, website: 'https://acme.test', support_email: null } },
      ]));

  it('records no website or support e-mail when none is given', () =>
    given([])
      .when({ type: 'CreateBusiness', name: 'Acme', simulated: false })
      .then([{ type: 'BusinessCreated', data: { business_id: 'biz_1', name: 'Acme', simulated: false, website: null, support_email: null } }]));

  it('never creates a business twice on one stream', () =>
    given([created()]).when({ type: 'CreateBusiness', name: 'Acme', simulated: false }).thenThrows(/already exists/));
});

describe('business decider: CreateApiKey', () => {
  const base = { type: 'CreateApiKey', businessId: 'biz_1', secretHash: HASH, last4: 'a1B2' } as const;

  it('creates a live secret key: prefix from kind and mode, no permissions, the hash only', () =>
    given([created()])
      .when({ ...base, kind: 'secret', mode: 'live', name: 'Backend' })
      .then([
        {
          type: 'ApiKeyCreated',
          data: {
            key_id: 'key_1',
            business_id: 'biz_1',
            kind: 'secret',
            mode: 'live',
            secret_hash: HASH,
            prefix: 'sk_live_',
            last4: 'a1B2',
            name: 'Backend',
            permissions: null,
          },
        },
      ]));

  it('creates a restricted key with its permissions in a stable order', () =>
    given([created()])
      .when({ ...base, kind: 'restricted', mode: 'test', permissions: { webhooks: 'read', payments: 'write' } })
      .then([
        {
          type: 'ApiKeyCreated',
          data: expect.objectContaining({ kind: 'restricted', mode: 'test', prefix: 'rk_test_', permissions: { payments: 'write', webhooks: 'read' } }),
        },
      ]));

  it('creates a publishable key without name or permissions', () =>
    given([created()])
      .when({ ...base, kind: 'publishable', mode: 'live' })
      .then([{ type: 'ApiKeyCreated', data: expect.objectContaining({ kind: 'publishable', prefix: 'pk_live_', name: null, permissions: null }) }]));

  it('refuses a key for a business that does not exist', () =>
    given([]).when({ ...base, kind: 'secret', mode: 'live' }).thenRefused('not_found', null, /No business biz_1/));

  it('refuses a restricted key without permissions, with none, or with unknown ones', () => {
    given([created()]).when({ ...base, kind: 'restricted', mode: 'live' }).thenRefused('invalid_request', 'permissions');
    given([created()]).when({ ...base, kind: 'restricted', mode: 'live', permissions: {} }).thenRefused('invalid_request', 'permissions');
    given([created()])
      .when({ ...base, kind: 'restricted', mode: 'live', permissions: { refunds: 'write' } as never })
      .thenRefused('invalid_request', 'permissions', /Unknown resource "refunds"/);
    given([created()])
      .when({ ...base, kind: 'restricted', mode: 'live', permissions: { payments: 'admin' } as never })
      .thenRefused('invalid_request', 'permissions', /Unknown access "admin"/);
  });

  it('refuses permissions on secret and publishable keys, and a name on a publishable key', () => {
    given([created()]).when({ ...base, kind: 'secret', mode: 'live', permissions: { payments: 'read' } }).thenRefused('invalid_request', 'permissions');
    given([created()]).when({ ...base, kind: 'publishable', mode: 'live', permissions: { payments: 'read' } }).thenRefused('invalid_request', 'permissions');
    given([created()]).when({ ...base, kind: 'publishable', mode: 'live', name: 'Shop' }).thenRefused('invalid_request', 'name');
  });

  it('refuses live keys on a simulated business', () => {
    given([created(true)]).when({ ...base, kind: 'secret', mode: 'live' }).thenRefused('invalid_request', 'mode', /simulated/);
    given([created(true)])
      .when({ ...base, kind: 'secret', mode: 'test' })
      .then([{ type: 'ApiKeyCreated', data: expect.objectContaining({ prefix: 'sk_test_' }) }]);
  });

  it('never takes a kind it does not know (the DTO refuses it before)', () =>
    given([created()]).when({ ...base, kind: 'master' as never, mode: 'live' }).thenThrows(/unhandled key kind: "master"/));

  it('never accepts a key in clear where its hash belongs', () =>
    given([created()])
      .when({ ...base, kind: 'secret', mode: 'live', secretHash: 'sk_live_0123456789abcdefghijklmnopqrstuv' })
      .thenThrows(/sha256 hex/));
});

describe('business decider: RevokeApiKey', () => {
  it('revokes a live key', () =>
    given([created(), keyCreated('key_9')])
      .when({ type: 'RevokeApiKey', businessId: 'biz_1', keyId: 'key_9' })
      .then([{ type: 'ApiKeyRevoked', data: { key_id: 'key_9' } }]));

  it('refuses a key that is already revoked', () =>
    given([created(), keyCreated('key_9'), revoked('key_9')])
      .when({ type: 'RevokeApiKey', businessId: 'biz_1', keyId: 'key_9' })
      .thenRefused('api_key_revoked', null, /already revoked/));

  it('refuses an unknown key and an unknown business', () => {
    given([created(), keyCreated('key_9')]).when({ type: 'RevokeApiKey', businessId: 'biz_1', keyId: 'key_8' }).thenRefused('not_found');
    given([]).when({ type: 'RevokeApiKey', businessId: 'biz_1', keyId: 'key_9' }).thenRefused('not_found');
  });
});

// The reason's shape (trimmed, 1–500 characters) is SuspendBusinessDto's: test/businesses/suspension.spec.ts.
describe('business decider: SuspendBusiness and ReinstateBusiness', () => {
  const suspend = { type: 'SuspendBusiness', businessId: 'biz_1', reason: 'Chargebacks' } as const;
  const reinstate = { type: 'ReinstateBusiness', businessId: 'biz_1' } as const;

  it('suspends an active business at the time of the decision, with the reason', () =>
    given([created(), keyCreated('key_9')])
      .when(suspend)
      .then([{ type: 'BusinessSuspended', data: { business_id: 'biz_1', suspended_at: '2026-01-02T03:04:05.678Z', reason: 'Chargebacks' } }]));

  it('refuses to suspend a business that is already suspended', () =>
    given([created(), suspended()]).when(suspend).thenRefused('business_suspended', null, /biz_1 is already suspended/));

  it('reinstates a suspended business', () =>
    given([created(), suspended()]).when(reinstate).then([{ type: 'BusinessReinstated', data: { business_id: 'biz_1' } }]));

  it('refuses to reinstate a business that is not suspended (never suspended, or reinstated already)', () => {
    given([created()]).when(reinstate).thenRefused('invalid_request', null, /biz_1 is not suspended/);
    given([created(), suspended(), reinstated()]).when(reinstate).thenRefused('invalid_request', null, /not suspended/);
  });

  it('suspends again after a reinstatement', () =>
    given([created(), suspended(), reinstated()])
      .when(suspend)
      .then([{ type: 'BusinessSuspended', data: expect.objectContaining({ suspended_at: '2026-01-02T03:04:05.678Z' }) }]));

  it('refuses both for a business that does not exist', () => {
    given([]).when(suspend).thenRefused('not_found', null, /No business biz_1/);
    given([]).when(reinstate).thenRefused('not_found', null, /No business biz_1/);
  });

  it('never records an empty or overlong reason (the DTO refuses it before)', () => {
    given([created()]).when({ ...suspend, reason: '  ' }).thenThrows(/reason of 1–500/);
    given([created()]).when({ ...suspend, reason: 'x'.repeat(501) }).thenThrows(/reason of 1–500/);
  });

  it('keys of a suspended business are still managed by the operator', () =>
    given([created(), keyCreated('key_9'), suspended()])
      .when({ type: 'RevokeApiKey', businessId: 'biz_1', keyId: 'key_9' })
      .then([{ type: 'ApiKeyRevoked', data: { key_id: 'key_9' } }]));
});

describe('business decider: evolve and decideAll', () => {
  it('folds a stream into the state commands decide on, without mutating earlier states', () => {
    const s1 = evolve(initialBusinessState, created());
    const s2 = evolve(s1, keyCreated('key_9', 'restricted', 'test'));
    const s3 = evolve(s2, revoked('key_9'));
    expect(s1).toEqual({
      status: 'active',
      id: 'biz_1',
      name: 'Acme',
      simulated: false,
      suspended: false,
      keys: {},
      checkoutSettings: DEFAULT_CHECKOUT_SETTINGS,
      settings: { name: 'Acme', website: null, support_email: null, email_alerts: true, product_updates: false },
      alertEmail: null,
      pendingAlert: null,
      referralCode: null,
    });
    expect(s2).toMatchObject({ keys: { key_9: { kind: 'restricted', mode: 'test', revoked: false } } });
    expect(s3).toMatchObject({ keys: { key_9: { revoked: true } } });
    expect(initialBusinessState).toEqual({ status: 'none' });
    const s4 = evolve(s3, suspended());
    expect(s4).toMatchObject({ suspended: true, keys: { key_9: { revoked: true } } });
    expect(evolve(s4, reinstated())).toMatchObject({ suspended: false });
    expect(s3).toMatchObject({ suspended: false });
  });

  it('decides a business and its first keys against each other’s state, for one append', () => {
    let n = 0;
    const ctx: DecideContext = { now: new Date(0), ids: { business: () => 'biz_7', key: () => `key_${++n}` } };
    const { events, state } = decideAll(
      [
        { type: 'CreateBusiness', name: 'Acme', simulated: false },
        (s) => ({ type: 'CreateApiKey', businessId: s.status === 'active' ? s.id : '', kind: 'secret', mode: 'live', secretHash: HASH, last4: 'aaaa' }),
        (s) => ({ type: 'CreateApiKey', businessId: s.status === 'active' ? s.id : '', kind: 'publishable', mode: 'live', secretHash: HASH2, last4: 'bbbb' }),
      ],
      initialBusinessState,
      ctx,
    );
    expect(events.map((e) => e.type)).toEqual(['BusinessCreated', 'ApiKeyCreated', 'ApiKeyCreated']);
    expect(events.slice(1).map((e) => (e.type === 'ApiKeyCreated' ? [e.data.key_id, e.data.business_id, e.data.prefix] : null))).toEqual([
      ['key_1', 'biz_7', 'sk_live_'],
      ['key_2', 'biz_7', 'pk_live_'],
    ]);
    expect(state).toMatchObject({ status: 'active', id: 'biz_7', keys: { key_1: { kind: 'secret' }, key_2: { kind: 'publishable' } } });
  });
});

describe('business decider: ChangeCheckoutSettings (decision 0028)', () => {
  const change = (c: Extract<BusinessCommand, { type: 'ChangeCheckoutSettings' }>['change']): BusinessCommand => ({ type: 'ChangeCheckoutSettings', businessId: 'biz_1', change: c });
  const changed = (settings: Partial<typeof DEFAULT_CHECKOUT_SETTINGS>): BusinessEvent => ({ type: 'CheckoutSettingsChanged', data: { business_id: 'biz_1', ...DEFAULT_CHECKOUT_SETTINGS, ...settings } });

  it('records the whole settings after a change: the fields sent replace, the others keep their value', () =>
    given([created()])
      .when(change({ ask_email: true, display_name: 'Acme Store' }))
      .then([changed({ ask_email: true, display_name: 'Acme Store' })]));

  it('builds on the last change', () =>
    given([created(), changed({ ask_email: true })])
      .when(change({ rails: ['card'] }))
      .then([changed({ ask_email: true, rails: ['card'] })]));

  it('keeps rails and assets in one order, without repeats', () =>
    given([created()])
      .when(change({ rails: ['card', 'crypto'], assets: [{ asset: 'BTC', network: 'bitcoin' }, { asset: 'USDC', network: 'polygon' }, { asset: 'USDC', network: 'polygon' }] }))
      .then([changed({ assets: [{ asset: 'USDC', network: 'polygon' }, { asset: 'BTC', network: 'bitcoin' }] })]));

  it('records nothing when nothing changes', () => given([created(), changed({ ask_email: true })]).when(change({ ask_email: true, rails: ['crypto', 'card'] })).then([]));

  it('assets null accepts every pair again', () => given([created(), changed({ assets: [{ asset: 'BTC', network: 'bitcoin' }] })]).when(change({ assets: null })).then([changed({})]));

  it('refuses to leave customers no way to pay', () => {
    given([created()]).when(change({ rails: [] })).thenRefused('invalid_request', 'rails');
    given([created()]).when(change({ assets: [] })).thenRefused('invalid_request', 'assets');
  });

  it('takes no assets while crypto is not accepted', () => given([created()]).when(change({ rails: ['card'], assets: [] })).then([changed({ rails: ['card'], assets: [] })]));

  it('refuses a business that does not exist', () => given([]).when(change({ ask_email: true })).thenRefused('not_found'));

  it('evolves to the recorded settings', () => {
    const state = foldBusiness([created(), changed({ ask_email: true, display_name: 'Shop' })]);
    expect(state).toMatchObject({ checkoutSettings: { ...DEFAULT_CHECKOUT_SETTINGS, ask_email: true, display_name: 'Shop' } });
  });
});
