import { Decider, foldWith, ignoreUnknown, unhandled } from '@lib/domain';
import { KeyKind, KeyMode, keyPrefix } from './api-keys';
import { CheckoutSettings, CheckoutSettingsChange, DEFAULT_CHECKOUT_SETTINGS, applySettingsChange, sameSettings } from './checkout-settings';
import { DomainError } from './domain-error';
import { BusinessEvent, asBusinessEvent } from './events';
import { Permissions, normalizePermissions } from './permissions';

/** The longest reason a suspension records (SuspendBusinessDto checks it first). */
export const SUSPENSION_REASON_MAX = 500;

/**
 * The business aggregate's decider: pure functions over the events of one `business-<id>`
 * stream. No clock, no randomness, no I/O: ids and the time come in through the context and
 * key material (the hash of a key minted by the caller) through the command. The input's shape
 * (texts trimmed and within their lengths, known key types and modes, well-formed permissions)
 * is checked before, by each use case's DTO (commands/*); the rules here are those of the
 * business's state and of key kinds.
 */

export interface KeyState {
  kind: KeyKind;
  mode: KeyMode;
  revoked: boolean;
  /** Absent from states folded before key changes existed: read as null. */
  name?: string | null;
  /** A restricted key's grants (absent: as created, unknown to this state; see updateApiKey). */
  permissions?: Permissions | null;
}

export type BusinessState =
  | { status: 'none' }
  | {
      /** The business exists ('active' is its existence here; whether it is suspended is `suspended`). */
      status: 'active';
      id: string;
      name: string;
      simulated: boolean;
      /** Suspended by an operator (BusinessSuspended) and not reinstated since. */
      suspended: boolean;
      keys: Readonly<Record<string, KeyState>>;
      /** What customers see and how they may pay (decision 0028); the defaults until changed. */
      checkoutSettings: CheckoutSettings;
    };

export const initialBusinessState: BusinessState = Object.freeze({ status: 'none' });

export interface CreateBusiness {
  type: 'CreateBusiness';
  /** Trimmed, 1–200 characters (CreateBusinessDto). */
  name: string;
  simulated: boolean;
  website?: string | null;
  supportEmail?: string | null;
}

export interface CreateApiKey {
  type: 'CreateApiKey';
  businessId: string;
  kind: KeyKind;
  mode: KeyMode;
  name?: string | null;
  /** Restricted keys only (and required for them). */
  permissions?: Permissions | null;
  /** sha256 hex of the key the caller minted (see mintApiKey); the key itself never gets here. */
  secretHash: string;
  last4: string;
}

export interface RevokeApiKey {
  type: 'RevokeApiKey';
  businessId: string;
  keyId: string;
}

/**
 * Change a key's name or a restricted key's grants (PATCH /api-keys/{id}; decision 0039). A field
 * left undefined is left as it is.
 */
export interface UpdateApiKey {
  type: 'UpdateApiKey';
  businessId: string;
  keyId: string;
  /** Trimmed, at most KEY_NAME_MAX characters, or null to clear it. */
  name?: string | null;
  /** Normalized grants (normalizePermissions). */
  permissions?: Permissions;
}

/** Give a key a new secret (POST /api-keys/{id}/roll): the old one stops working at once. */
export interface RollApiKey {
  type: 'RollApiKey';
  businessId: string;
  keyId: string;
  /** sha256 hex of the new key the caller minted (same kind and mode). */
  secretHash: string;
  last4: string;
}

/** An operator suspends the business: it creates no payments and opens no checkouts until reinstated. */
export interface SuspendBusiness {
  type: 'SuspendBusiness';
  businessId: string;
  /** Why, for the record: trimmed, 1–500 characters (SuspendBusinessDto). */
  reason: string;
}

/** An operator lifts a suspension. */
export interface ReinstateBusiness {
  type: 'ReinstateBusiness';
  businessId: string;
}

/** The business changes its checkout settings (PATCH /checkout-settings): the fields sent replace the current ones. */
export interface ChangeCheckoutSettings {
  type: 'ChangeCheckoutSettings';
  businessId: string;
  /** Checked by ChangeCheckoutSettingsDto (shapes, lengths, pairs the service carries). */
  change: CheckoutSettingsChange;
}

export type BusinessCommand = CreateBusiness | CreateApiKey | RevokeApiKey | UpdateApiKey | RollApiKey | SuspendBusiness | ReinstateBusiness | ChangeCheckoutSettings;

export interface DecideContext {
  /** The time of the decision. No rule of this aggregate depends on it yet; stored times are the log's. */
  now: Date;
  ids: {
    /** A new business id (`biz_…`). */
    business(): string;
    /** A new key id (`key_…`). */
    key(): string;
  };
}

export function decide(command: BusinessCommand, state: BusinessState, ctx: DecideContext): BusinessEvent[] {
  switch (command.type) {
    case 'CreateBusiness':
      return createBusiness(command, state, ctx);
    case 'CreateApiKey':
      return createApiKey(command, state, ctx);
    case 'RevokeApiKey':
      return revokeApiKey(command, state);
    case 'UpdateApiKey':
      return updateApiKey(command, state);
    case 'RollApiKey':
      return rollApiKey(command, state);
    case 'SuspendBusiness':
      return suspendBusiness(command, state, ctx);
    case 'ReinstateBusiness':
      return reinstateBusiness(command, state);
    case 'ChangeCheckoutSettings':
      return changeCheckoutSettings(command, state);
    default:
      return unhandled(command, 'business command');
  }
}

export function evolve(state: BusinessState, event: BusinessEvent): BusinessState {
  switch (event.type) {
    case 'BusinessCreated':
      return { status: 'active', id: event.data.business_id, name: event.data.name, simulated: event.data.simulated, suspended: false, keys: {}, checkoutSettings: DEFAULT_CHECKOUT_SETTINGS };
    case 'ApiKeyCreated':
      if (state.status === 'none') return state;
      return {
        ...state,
        keys: { ...state.keys, [event.data.key_id]: { kind: event.data.kind, mode: event.data.mode, revoked: false, name: event.data.name ?? null, permissions: event.data.permissions ?? null } },
      };
    case 'ApiKeyUpdated': {
      if (state.status === 'none') return state;
      const key = state.keys[event.data.key_id];
      if (!key) return state;
      const changed: KeyState = { ...key };
      if (event.data.name !== undefined) changed.name = event.data.name;
      if (event.data.permissions !== undefined) changed.permissions = event.data.permissions;
      return { ...state, keys: { ...state.keys, [event.data.key_id]: changed } };
    }
    case 'ApiKeyRolled':
      return state; // the secret's hash is no state any rule decides on
    case 'ApiKeyRevoked': {
      if (state.status === 'none') return state;
      const key = state.keys[event.data.key_id];
      if (!key) return state;
      return { ...state, keys: { ...state.keys, [event.data.key_id]: { ...key, revoked: true } } };
    }
    case 'BusinessSuspended':
      return state.status === 'none' ? state : { ...state, suspended: true };
    case 'BusinessReinstated':
      return state.status === 'none' ? state : { ...state, suspended: false };
    case 'CheckoutSettingsChanged': {
      if (state.status === 'none') return state;
      const { business_id: _id, ...settings } = event.data;
      return { ...state, checkoutSettings: settings };
    }
    default:
      return ignoreUnknown(event, state); // a type this version does not know changes nothing it decides on
  }
}

/** The business aggregate as one Decider: what CommandRunner runs on `business-<biz_id>` streams. */
export const businessDecider: Decider<BusinessCommand, BusinessEvent, BusinessState, DecideContext> = {
  initialState: initialBusinessState,
  decide,
  evolve,
  fromStored: asBusinessEvent,
};

/** The state after some events (from the initial state unless given). */
export function foldBusiness(events: Iterable<BusinessEvent>, state: BusinessState = initialBusinessState): BusinessState {
  return foldWith(businessDecider, events, state);
}

/**
 * Decides several commands in a row, each against the state the previous ones left, so they
 * can be appended together (a business and its first keys in one append).
 */
export function decideAll(
  commands: readonly BusinessCommandStep[],
  state: BusinessState,
  ctx: DecideContext,
): { events: BusinessEvent[]; state: BusinessState } {
  const events: BusinessEvent[] = [];
  let current = state;
  for (const entry of commands) {
    const decided = decide(typeof entry === 'function' ? entry(current) : entry, current, ctx);
    current = foldBusiness(decided, current);
    events.push(...decided);
  }
  return { events, state: current };
}

/** A command of a batch: the command, or how to build it from the state the earlier ones left. */
export type BusinessCommandStep = BusinessCommand | ((state: BusinessState) => BusinessCommand);

/**
 * The business decider over a batch of commands decided in a row (decideAll), appended at once:
 * a new business and its first keys are one append.
 */
export const businessBatchDecider: Decider<readonly BusinessCommandStep[], BusinessEvent, BusinessState, DecideContext> = {
  ...businessDecider,
  decide: (commands, state, ctx) => decideAll(commands, state, ctx).events,
};

function createBusiness(command: CreateBusiness, state: BusinessState, ctx: DecideContext): BusinessEvent[] {
  if (state.status !== 'none') throw new Error(`business ${state.id} already exists`); // ids are ours: never a client's doing
  return [
    {
      type: 'BusinessCreated',
      data: {
        business_id: ctx.ids.business(),
        name: command.name,
        simulated: command.simulated,
        website: command.website ?? null,
        support_email: command.supportEmail ?? null,
      },
    },
  ];
}

function createApiKey(command: CreateApiKey, state: BusinessState, ctx: DecideContext): BusinessEvent[] {
  const business = existing(state, command.businessId);
  if (business.simulated && command.mode === 'live') {
    throw new DomainError('invalid_request', 'A simulated business has test keys only: use mode test.', 'mode');
  }
  if (!/^[0-9a-f]{64}$/.test(command.secretHash) || !/^[0-9A-Za-z]{4}$/.test(command.last4)) {
    throw new Error('CreateApiKey needs the sha256 hex of a minted key and its last 4 characters');
  }
  let permissions: Permissions | null = null;
  const given = command.permissions ?? null;
  const name = command.name ?? null;
  switch (command.kind) {
    case 'secret':
      if (given !== null) throw new DomainError('invalid_request', 'A secret key has every permission; create a restricted key to limit access.', 'permissions');
      break;
    case 'publishable':
      if (given !== null) throw new DomainError('invalid_request', 'A publishable key has no permissions: it only names the business on public routes.', 'permissions');
      if (name !== null) throw new DomainError('invalid_request', 'A publishable key has no name.', 'name');
      break;
    case 'restricted':
      if (given === null) throw new DomainError('invalid_request', 'A restricted key needs permissions, for example payments:write,webhooks:read.', 'permissions');
      permissions = normalizePermissions(given);
      if (Object.keys(permissions).length === 0) {
        throw new DomainError('invalid_request', 'A restricted key needs at least one permission, for example payments:read.', 'permissions');
      }
      break;
    default:
      return unhandled(command.kind, 'key kind');
  }
  return [
    {
      type: 'ApiKeyCreated',
      data: {
        key_id: ctx.ids.key(),
        business_id: business.id,
        kind: command.kind,
        mode: command.mode,
        secret_hash: command.secretHash,
        prefix: keyPrefix(command.kind, command.mode),
        last4: command.last4,
        name,
        permissions,
      },
    },
  ];
}

function revokeApiKey(command: RevokeApiKey, state: BusinessState): BusinessEvent[] {
  const business = existing(state, command.businessId);
  const key = business.keys[command.keyId];
  if (!key) throw new DomainError('not_found', `No API key ${command.keyId}.`);
  if (key.revoked) throw new DomainError('api_key_revoked', `API key ${command.keyId} is already revoked.`);
  return [{ type: 'ApiKeyRevoked', data: { key_id: command.keyId } }];
}

/** A key of this business, not revoked: 404 not_found, else 409 api_key_revoked (§7: a revoked key cannot be changed). */
function changeableKey(business: Extract<BusinessState, { status: 'active' }>, keyId: string): KeyState {
  const key = Object.prototype.hasOwnProperty.call(business.keys, keyId) ? business.keys[keyId] : undefined;
  if (!key) throw new DomainError('not_found', `No API key ${keyId}.`);
  if (key.revoked) throw new DomainError('api_key_revoked', `API key ${keyId} is revoked: a revoked key cannot be changed.`);
  return key;
}

function updateApiKey(command: UpdateApiKey, state: BusinessState): BusinessEvent[] {
  const business = existing(state, command.businessId);
  const key = changeableKey(business, command.keyId);
  if (key.kind === 'publishable') throw new DomainError('publishable_key', 'A publishable key has no name or permissions to change.');
  const data: { key_id: string; name?: string | null; permissions?: Permissions } = { key_id: command.keyId };
  if (command.name !== undefined && command.name !== (key.name ?? null)) data.name = command.name;
  if (command.permissions !== undefined) {
    if (key.kind !== 'restricted') {
      throw new DomainError('invalid_request', 'A secret key has every permission; create a restricted key to limit access.', 'permissions');
    }
    const permissions = normalizePermissions(command.permissions);
    if (Object.keys(permissions).length === 0) {
      throw new DomainError('invalid_request', 'A restricted key needs at least one permission, for example payments:read.', 'permissions');
    }
    if (key.permissions === undefined || JSON.stringify(permissions) !== JSON.stringify(key.permissions)) data.permissions = permissions;
  }
  if (data.name === undefined && data.permissions === undefined) return []; // nothing changes: no event
  return [{ type: 'ApiKeyUpdated', data }];
}

function rollApiKey(command: RollApiKey, state: BusinessState): BusinessEvent[] {
  const business = existing(state, command.businessId);
  changeableKey(business, command.keyId);
  if (!/^[0-9a-f]{64}$/.test(command.secretHash) || !/^[0-9A-Za-z]{4}$/.test(command.last4)) {
    throw new Error('RollApiKey needs the sha256 hex of a minted key and its last 4 characters');
  }
  return [{ type: 'ApiKeyRolled', data: { key_id: command.keyId, secret_hash: command.secretHash, last4: command.last4 } }];
}

function suspendBusiness(command: SuspendBusiness, state: BusinessState, ctx: DecideContext): BusinessEvent[] {
  const business = existing(state, command.businessId);
  if (business.suspended) throw new DomainError('business_suspended', `Business ${business.id} is already suspended.`);
  const reason = command.reason.trim();
  if (reason.length === 0 || reason.length > SUSPENSION_REASON_MAX) throw new Error(`SuspendBusiness needs a reason of 1–${SUSPENSION_REASON_MAX} characters`); // the DTO's rule
  return [{ type: 'BusinessSuspended', data: { business_id: business.id, suspended_at: ctx.now.toISOString(), reason } }];
}

function reinstateBusiness(command: ReinstateBusiness, state: BusinessState): BusinessEvent[] {
  const business = existing(state, command.businessId);
  // no code of its own: the operator's refusal needs no new public error code (decision 0016)
  if (!business.suspended) throw new DomainError('invalid_request', `Business ${business.id} is not suspended: there is nothing to reinstate.`);
  return [{ type: 'BusinessReinstated', data: { business_id: business.id } }];
}

function changeCheckoutSettings(command: ChangeCheckoutSettings, state: BusinessState): BusinessEvent[] {
  const business = existing(state, command.businessId);
  const next = applySettingsChange(business.checkoutSettings, command.change);
  if (next.rails.length === 0) throw new DomainError('invalid_request', 'rails must keep at least one rail: customers need a way to pay.', 'rails');
  if (next.assets !== null && next.assets.length === 0 && next.rails.includes('crypto')) {
    throw new DomainError('invalid_request', 'assets must list at least one coin and network while crypto is accepted.', 'assets');
  }
  if (sameSettings(next, business.checkoutSettings)) return []; // nothing changes: no event
  return [{ type: 'CheckoutSettingsChanged', data: { business_id: business.id, ...next } }];
}

function existing(state: BusinessState, businessId: string): Extract<BusinessState, { status: 'active' }> {
  if (state.status === 'none') throw new DomainError('not_found', `No business ${businessId}.`);
  if (state.id !== businessId) throw new Error(`command for business ${businessId} decided on the stream of ${state.id}`);
  return state;
}
