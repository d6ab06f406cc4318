import { CommandHandlers, Decider, STEP_UP_HOW, decideBy, foldWith, ignoreUnknown, unhandled } from '@lib/domain';
import { KeyKind, KeyMode, keyPrefix } from './api-keys';
import { CheckoutSettings, CheckoutSettingsChange, DEFAULT_CHECKOUT_SETTINGS, applySettingsChange, sameSettings } from './checkout-settings';
import {
  ALERT_CODE_TTL_MS,
  ALERT_MAX_CODES,
  ALERT_MAX_WRONG_CODES,
  ALERT_PENDING_TTL_MS,
  ALERT_RESEND_GAP_MS,
  alertCodeMatches,
  normalizeAlertCode,
} from './alert-email';
import { DomainError } from './domain-error';
import { BusinessEvent, BusinessSettingsChangedData, asBusinessEvent } from './events';
import { Permissions, addedGrants, formatPermissions, normalizePermissions } from './permissions';

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
      /** The settings of PATCH /businesses/{id} (decision 0035). */
      settings: BusinessSettings;
      /** Where alerts go once confirmed (null: nowhere yet). */
      alertEmail: string | null;
      /** A new alert address waiting for its code. */
      pendingAlert: PendingAlertEmail | null;
      /** The business's referral code (null for businesses created before referrals, until they choose one). */
      referralCode: string | null;
    };

/** The business's own settings: what PATCH /businesses/{id} changes besides the alert address. */
export interface BusinessSettings {
  name: string;
  website: string | null;
  support_email: string | null;
  email_alerts: boolean;
  product_updates: boolean;
}

export interface PendingAlertEmail {
  email: string;
  codeSalt: string;
  codeHash: string;
  /** ISO 8601: the current code's sending (valid 15 minutes). */
  sentAt: string;
  /** ISO 8601: when the address was entered (pending 24 hours). */
  pendingSince: string;
  /** Codes sent for this address (5 at most). */
  codesSent: number;
  /** Wrong codes tried since the current code was sent (5 → too_many_attempts). */
  wrongTries: number;
}

/** Defaults of a new business: alerts by e-mail on (they go nowhere until an address is confirmed), no product news. */
export const DEFAULT_EMAIL_ALERTS = true;
export const DEFAULT_PRODUCT_UPDATES = false;

export const initialBusinessState: BusinessState = Object.freeze({ status: 'none' });

export interface CreateBusiness {
  type: 'CreateBusiness';
  /** Trimmed, 1–200 characters (CreateBusinessDto). */
  name: string;
  simulated: boolean;
  website?: string | null;
  supportEmail?: string | null;
  /** Its referral code, already claimed on the code's stream. */
  referralCode?: string | null;
  /** The referrer, when the business signed up with another's code. */
  referredBy?: { businessId: string; code: string } | null;
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
  /**
   * Whether the caller proved its person within 15 minutes (spec §5.6: a session's step-up, or
   * the sign-in that started it). Giving a key more access needs it (403 step_up_required);
   * renaming and narrowing do not.
   */
  steppedUp: boolean;
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

/** The business changes its settings (PATCH /businesses/{id}): the fields sent replace the current ones. */
export interface ChangeBusinessSettings {
  type: 'ChangeBusinessSettings';
  businessId: string;
  /** Checked by UpdateBusinessDto (trimmed, lengths, e-mail shape). */
  change: Partial<BusinessSettings>;
}

/**
 * A new alert address (or the pending one again: a new code): the code was minted and will be
 * e-mailed by the use case; only its salt and hash get here.
 */
export interface SendAlertEmailCode {
  type: 'SendAlertEmailCode';
  businessId: string;
  email: string;
  codeSalt: string;
  codeHash: string;
}

/** The code typed for the pending alert address (POST /businesses/{id}/alert-email/confirm), spaces and all. */
export interface ConfirmAlertEmail {
  type: 'ConfirmAlertEmail';
  businessId: string;
  code: string;
}

/** The business chooses another referral code, already claimed on the code's stream; `hasWallet` from the wallets read side. */
export interface ChangeReferralCode {
  type: 'ChangeReferralCode';
  businessId: string;
  code: string;
  hasWallet: boolean;
}

/**
 * Withdraws what an update appended when the code it recorded could not be e-mailed (SMTP down
 * after the append: decision 0035, addendum of 2026-11-29): the settings it changed go back to
 * their values before it, its referral code back to the previous one, its alert code back to
 * what was pending before — each only while the stream still shows what the update set (a later
 * change is not undone). `appended` and `before`: the update's events and the state they were
 * decided on (the run that appended them).
 */
export interface WithdrawUndeliveredUpdate {
  type: 'WithdrawUndeliveredUpdate';
  businessId: string;
  appended: readonly BusinessEvent[];
  before: BusinessState;
}

export type BusinessCommand =
  | CreateBusiness
  | CreateApiKey
  | RevokeApiKey
  | UpdateApiKey
  | RollApiKey
  | SuspendBusiness
  | ReinstateBusiness
  | ChangeCheckoutSettings
  | ChangeBusinessSettings
  | SendAlertEmailCode
  | ConfirmAlertEmail
  | ChangeReferralCode
  | WithdrawUndeliveredUpdate;

export interface DecideContext {
  /** The time of the decision: the alert code's and pending address's validity, a suspension's time. */
  now: Date;
  ids: {
    /** A new business id (`biz_…`). */
    business(): string;
    /** A new key id (`key_…`). */
    key(): string;
  };
}

/** What each business command decides: one handler a command type (a type left out fails to compile). */
const BUSINESS_COMMANDS: CommandHandlers<BusinessCommand, BusinessState, DecideContext, BusinessEvent> = {
  CreateBusiness: createBusiness,
  CreateApiKey: createApiKey,
  RevokeApiKey: revokeApiKey,
  UpdateApiKey: updateApiKey,
  RollApiKey: rollApiKey,
  SuspendBusiness: suspendBusiness,
  ReinstateBusiness: reinstateBusiness,
  ChangeCheckoutSettings: changeCheckoutSettings,
  ChangeBusinessSettings: changeBusinessSettings,
  SendAlertEmailCode: sendAlertEmailCode,
  ConfirmAlertEmail: confirmAlertEmail,
  ChangeReferralCode: changeReferralCode,
  WithdrawUndeliveredUpdate: withdrawUndeliveredUpdate,
};

export function decide(command: BusinessCommand, state: BusinessState, ctx: DecideContext): BusinessEvent[] {
  return decideBy(BUSINESS_COMMANDS, command, state, ctx, 'business command');
}

export function evolve(state: BusinessState, event: BusinessEvent): BusinessState {
  switch (event.type) {
    case 'BusinessCreated':
      return {
        status: 'active',
        id: event.data.business_id,
        name: event.data.name,
        simulated: event.data.simulated,
        suspended: false,
        keys: {},
        checkoutSettings: DEFAULT_CHECKOUT_SETTINGS,
        settings: { name: event.data.name, website: event.data.website ?? null, support_email: event.data.support_email ?? null, email_alerts: DEFAULT_EMAIL_ALERTS, product_updates: DEFAULT_PRODUCT_UPDATES },
        alertEmail: null,
        pendingAlert: null,
        referralCode: event.data.referral_code ?? null,
      };
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
    case 'BusinessSettingsChanged': {
      if (state.status === 'none') return state;
      const { business_id: _id, ...changed } = event.data;
      const settings = { ...state.settings, ...changed };
      return { ...state, name: settings.name, settings };
    }
    case 'AlertEmailCodeSent': {
      if (state.status === 'none') return state;
      const d = event.data;
      const again = state.pendingAlert !== null && state.pendingAlert.email === d.email && state.pendingAlert.pendingSince === d.pending_since;
      return {
        ...state,
        pendingAlert: { email: d.email, codeSalt: d.code_salt, codeHash: d.code_hash, sentAt: d.sent_at, pendingSince: d.pending_since, codesSent: again ? state.pendingAlert!.codesSent + 1 : 1, wrongTries: 0 },
      };
    }
    case 'AlertEmailCodeRejected':
      if (state.status === 'none' || state.pendingAlert === null) return state;
      return { ...state, pendingAlert: { ...state.pendingAlert, wrongTries: state.pendingAlert.wrongTries + 1 } };
    case 'AlertEmailCodeWithdrawn': {
      if (state.status === 'none') return state;
      const r = event.data.restored;
      return { ...state, pendingAlert: r && { email: r.email, codeSalt: r.code_salt, codeHash: r.code_hash, sentAt: r.sent_at, pendingSince: r.pending_since, codesSent: r.codes_sent, wrongTries: r.wrong_tries } };
    }
    case 'AlertEmailConfirmed':
      return state.status === 'none' ? state : { ...state, alertEmail: event.data.email, pendingAlert: null };
    case 'ReferralCodeChanged':
      return state.status === 'none' ? state : { ...state, referralCode: event.data.code };
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
        // recorded only when there is one: a business without them keeps the shape it always had
        ...(command.referralCode ? { referral_code: command.referralCode } : {}),
        ...(command.referredBy ? { referred_by: { business_id: command.referredBy.businessId, code: command.referredBy.code } } : {}),
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
    // who can reach what in the business (§5.6): a grant added or raised needs a step-up; grants of a state that does not know them count as added
    const added = addedGrants(key.permissions, permissions);
    if (data.permissions !== undefined && !command.steppedUp && Object.keys(added).length > 0) {
      throw new DomainError('step_up_required', `Giving this key more access (${formatPermissions(added)}) needs a step-up first: ${STEP_UP_HOW}. Renaming a key or narrowing its grants does not.`);
    }
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

function changeBusinessSettings(command: ChangeBusinessSettings, state: BusinessState): BusinessEvent[] {
  const business = existing(state, command.businessId);
  const changed: Omit<BusinessSettingsChangedData, 'business_id'> = {};
  const c = command.change;
  if (c.name !== undefined && c.name !== business.settings.name) {
    if (c.name.trim().length === 0) throw new DomainError('invalid_request', 'name cannot be blank.', 'name');
    changed.name = c.name;
  }
  if (c.website !== undefined && c.website !== business.settings.website) changed.website = c.website;
  if (c.support_email !== undefined && c.support_email !== business.settings.support_email) changed.support_email = c.support_email;
  if (c.email_alerts !== undefined && c.email_alerts !== business.settings.email_alerts) changed.email_alerts = c.email_alerts;
  if (c.product_updates !== undefined && c.product_updates !== business.settings.product_updates) changed.product_updates = c.product_updates;
  if (Object.keys(changed).length === 0) return []; // nothing changes: no event
  return [{ type: 'BusinessSettingsChanged', data: { business_id: business.id, ...changed } }];
}

const sameAddress = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();
const secondsUntil = (at: number, now: Date) => Math.max(1, Math.ceil((at - now.getTime()) / 1000));

/**
 * A code for a new alert address. The current address again: nothing to confirm, no event. The
 * pending address again (within its 24 hours): a new code, at most one a minute and 5 in all
 * (429 too_many_emails, `retry_after` seconds in the details). Any other address replaces what
 * was pending.
 */
function sendAlertEmailCode(command: SendAlertEmailCode, state: BusinessState, ctx: DecideContext): BusinessEvent[] {
  const business = existing(state, command.businessId);
  if (!/^[0-9a-f]{32}$/.test(command.codeSalt) || !/^[0-9a-f]{64}$/.test(command.codeHash)) throw new Error('SendAlertEmailCode needs a hex salt and the scrypt hash of a minted code');
  if (business.alertEmail !== null && sameAddress(business.alertEmail, command.email)) return [];
  const now = ctx.now;
  const pending = business.pendingAlert;
  let pendingSince = now.toISOString();
  if (pending && sameAddress(pending.email, command.email) && now.getTime() - Date.parse(pending.pendingSince) < ALERT_PENDING_TTL_MS) {
    const nextAllowed = Date.parse(pending.sentAt) + ALERT_RESEND_GAP_MS;
    if (now.getTime() < nextAllowed) {
      throw new DomainError('too_many_emails', 'A code was just sent to this address: wait a minute before asking for another.', 'alert_email', { retry_after: secondsUntil(nextAllowed, now) });
    }
    if (pending.codesSent >= ALERT_MAX_CODES) {
      throw new DomainError('too_many_emails', `${ALERT_MAX_CODES} codes were sent to this address: enter one of them, or another address.`, 'alert_email', {
        retry_after: secondsUntil(Date.parse(pending.pendingSince) + ALERT_PENDING_TTL_MS, now),
      });
    }
    pendingSince = pending.pendingSince;
  }
  return [
    {
      type: 'AlertEmailCodeSent',
      data: { business_id: business.id, email: command.email, code_salt: command.codeSalt, code_hash: command.codeHash, sent_at: now.toISOString(), pending_since: pendingSince },
    },
  ];
}

/**
 * The code typed for the pending address (spec §4): nothing pending or older than 24 hours → 409
 * verification_expired; 5 wrong tries already → 429 too_many_attempts (until a new code;
 * Retry-After: until the dead code expires, after which it is code_expired like any old code —
 * addendum of 2026-11-30); not 6 digits once spaces are removed → 400 invalid_code; older than
 * 15 minutes → 400 code_expired; a
 * wrong code is recorded (AlertEmailCodeRejected: the use case answers 400 invalid_code); the
 * right one confirms the address.
 */
function confirmAlertEmail(command: ConfirmAlertEmail, state: BusinessState, ctx: DecideContext): BusinessEvent[] {
  const business = existing(state, command.businessId);
  const pending = business.pendingAlert;
  const now = ctx.now.getTime();
  if (pending === null) throw new DomainError('verification_expired', 'No new alert e-mail is waiting for a code: enter the address again.');
  if (now - Date.parse(pending.pendingSince) >= ALERT_PENDING_TTL_MS) {
    throw new DomainError('verification_expired', 'The new alert e-mail waited more than 24 hours: enter the address again.');
  }
  const codeEnds = Date.parse(pending.sentAt) + ALERT_CODE_TTL_MS;
  if (pending.wrongTries >= ALERT_MAX_WRONG_CODES && now < codeEnds) {
    // dead until a new code; the refusal itself ends when the code expires (then code_expired) or the pending address does
    // (verification_expired): a finite Retry-After that a retry can pass (audit lim F1, addendum of 2026-11-30)
    throw new DomainError('too_many_attempts', `${ALERT_MAX_WRONG_CODES} wrong codes: this code no longer works; ask for a new code.`, 'code', {
      retry_after: secondsUntil(Math.min(codeEnds, Date.parse(pending.pendingSince) + ALERT_PENDING_TTL_MS), ctx.now),
    });
  }
  const code = normalizeAlertCode(command.code);
  if (code === null) throw new DomainError('invalid_code', 'The code is the 6 digits e-mailed to the new address.', 'code');
  if (now - Date.parse(pending.sentAt) >= ALERT_CODE_TTL_MS) throw new DomainError('code_expired', 'The code is older than 15 minutes: ask for a new one.', 'code');
  if (!alertCodeMatches(code, pending.codeSalt, pending.codeHash)) return [{ type: 'AlertEmailCodeRejected', data: { business_id: business.id } }];
  return [{ type: 'AlertEmailConfirmed', data: { business_id: business.id, email: pending.email } }];
}

function changeReferralCode(command: ChangeReferralCode, state: BusinessState): BusinessEvent[] {
  const business = existing(state, command.businessId);
  if (business.referralCode === command.code) return [];
  if (command.hasWallet) throw new DomainError('referral_locked', 'The referral code cannot change once the business has a wallet.', 'referral_code');
  return [{ type: 'ReferralCodeChanged', data: { business_id: business.id, code: command.code, previous: business.referralCode } }];
}

function withdrawUndeliveredUpdate(command: WithdrawUndeliveredUpdate, state: BusinessState): BusinessEvent[] {
  const business = existing(state, command.businessId);
  const before = command.before;
  if (before.status === 'none') return [];
  const events: BusinessEvent[] = [];
  for (const event of command.appended) {
    if (event.type === 'BusinessSettingsChanged') {
      const { business_id: _id, ...changed } = event.data;
      const back: Record<string, unknown> = {};
      for (const [field, value] of Object.entries(changed) as [keyof BusinessSettings, unknown][]) {
        if (business.settings[field] === value) back[field] = before.settings[field];
      }
      if (Object.keys(back).length > 0) events.push({ type: 'BusinessSettingsChanged', data: { business_id: business.id, ...(back as Partial<BusinessSettings>) } });
    } else if (event.type === 'ReferralCodeChanged') {
      if (business.referralCode === event.data.code && before.referralCode !== null) {
        events.push({ type: 'ReferralCodeChanged', data: { business_id: business.id, code: before.referralCode, previous: event.data.code } });
      }
    } else if (event.type === 'AlertEmailCodeSent') {
      if (business.pendingAlert?.codeHash !== event.data.code_hash) continue;
      const p = before.pendingAlert;
      const restored = p && { email: p.email, code_salt: p.codeSalt, code_hash: p.codeHash, sent_at: p.sentAt, pending_since: p.pendingSince, codes_sent: p.codesSent, wrong_tries: p.wrongTries };
      events.push({ type: 'AlertEmailCodeWithdrawn', data: { business_id: business.id, code_hash: event.data.code_hash, restored } });
    }
  }
  return events;
}

function existing(state: BusinessState, businessId: string): Extract<BusinessState, { status: 'active' }> {
  if (state.status === 'none') throw new DomainError('not_found', `No business ${businessId}.`);
  if (state.id !== businessId) throw new Error(`command for business ${businessId} decided on the stream of ${state.id}`);
  return state;
}
