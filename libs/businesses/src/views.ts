import { OrNull, ignoreUnknown, orNullFields, pickFields } from '@lib/domain';
import type { RecordedEvent } from '@lib/eventstore';
import { KeyKind, KeyMode, redactKey } from './api-keys';
import { DEFAULT_EMAIL_ALERTS, DEFAULT_PRODUCT_UPDATES } from './business.decider';
import { CheckoutSettings } from './checkout-settings';
import { ApiKeyCreatedData, BusinessCreatedData, asBusinessEvent } from './events';
import { Permissions } from './permissions';
import { BUSINESS_STREAM } from './stream-categories';

/** A row of the `businesses` table: the business as BusinessCreated recorded it, with its status and times. */
export interface BusinessRow extends Omit<BusinessCreatedData, 'business_id' | 'referred_by'> {
  id: string;
  status: BusinessStatus;
  created_at: Date;
  updated_at: Date;
  /** Since when the business is suspended; null while it is active (absent from views stored before suspensions existed). */
  suspended_at: Date | null;
  /** Settings of PATCH /businesses/{id} and the alert address (decision 0035); absent from rows stored before them. */
  email_alerts?: boolean;
  product_updates?: boolean;
  alert_email?: string | null;
  pending_alert_email?: string | null;
  /** The business's referral code, and the business that referred it (by id). */
  referral_code?: string | null;
  referred_by?: string | null;
}

/** A row of the `checkout_settings` table: a business's settings since its last change. */
export interface CheckoutSettingsRow {
  business_id: string;
  settings: CheckoutSettings;
  updated_at: Date;
}

/** `suspended` from BusinessSuspended until BusinessReinstated. */
export type BusinessStatus = 'active' | 'suspended';

/** What a suspension or a reinstatement changes on a business row. */
export type BusinessStatusChange = Pick<BusinessRow, 'status' | 'suspended_at' | 'updated_at'>;

/** A row of the `api_keys` table: the key as ApiKeyCreated recorded it, with its times. */
export interface ApiKeyRow extends Omit<ApiKeyCreatedData, 'key_id'> {
  id: string;
  created_at: Date;
  revoked_at: Date | null;
}

/** What key changes set on a row created before them (ApiKeyUpdated, ApiKeyRolled): the fields present. */
export type KeyChange = Partial<Pick<ApiKeyRow, 'name' | 'permissions' | 'secret_hash' | 'last4'>>;

/**
 * The business object (spec §2), plus whether it is a simulated business: its row, times as ISO strings, and the alert settings.
 * `referral_code`: the code other businesses sign up with to be referred by this one (decision 0035); null, like the alert
 * addresses, where the row has none.
 */
export interface Business extends Pick<BusinessRow, 'id' | 'name' | 'simulated' | 'status' | 'website' | 'support_email'>, OrNull<Pick<BusinessRow, 'referral_code' | 'alert_email' | 'pending_alert_email'>> {
  kind: 'business';
  suspended_at: string | null;
  email_alerts: boolean;
  product_updates: boolean;
  created_at: string;
  updated_at: string;
}

/** An API key as shown after creation: never its hash, never the key itself. */
export interface ApiKeyView {
  kind: 'api_key';
  id: string;
  business_id: string;
  type: KeyKind;
  mode: KeyMode;
  name: string | null;
  /** A restricted key's grants; null for secret (everything) and publishable (nothing) keys. */
  permissions: Permissions | null;
  /** `sk_live_…a1b2` */
  redacted_key: string;
  created_at: string;
  revoked_at: string | null;
  /** When a request last authenticated with it, to a minute (api_key_use.ts); null: never. */
  last_used_at: string | null;
}

export function businessView(row: BusinessRow): Business {
  return {
    kind: 'business',
    ...pickFields(row, ['id', 'name', 'website', 'support_email']),
    ...orNullFields(row, ['alert_email', 'pending_alert_email']),
    status: row.status,
    suspended_at: row.suspended_at ? iso(row.suspended_at) : null,
    email_alerts: row.email_alerts ?? DEFAULT_EMAIL_ALERTS,
    product_updates: row.product_updates ?? DEFAULT_PRODUCT_UPDATES,
    referral_code: row.referral_code ?? null,
    simulated: row.simulated,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

/** A key row as reads give it: with when it was last used when they read that (api_key_activity). */
export type ApiKeyReadRow = Omit<ApiKeyRow, 'secret_hash'> & { last_used_at?: Date | string | null };

export function apiKeyView(row: ApiKeyReadRow): ApiKeyView {
  return {
    kind: 'api_key',
    id: row.id,
    business_id: row.business_id,
    type: row.kind,
    mode: row.mode,
    name: row.name,
    permissions: row.permissions ? { ...row.permissions } : null,
    redacted_key: redactKey(row.prefix, row.last4),
    created_at: iso(row.created_at),
    revoked_at: row.revoked_at ? iso(row.revoked_at) : null,
    last_used_at: row.last_used_at ? iso(row.last_used_at) : null,
  };
}

/** Keys in the order lists show them: oldest first; in one append the secret key first. */
export function compareKeyRows(a: Pick<ApiKeyRow, 'created_at' | 'kind' | 'id'>, b: Pick<ApiKeyRow, 'created_at' | 'kind' | 'id'>): number {
  return a.created_at.getTime() - b.created_at.getTime() || KIND_ORDER[a.kind] - KIND_ORDER[b.kind] || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}
export const KIND_ORDER: Record<KeyKind, number> = { secret: 0, publishable: 1, restricted: 2 };

/**
 * The rows the businesses projection holds for some events, computed in memory: the
 * projector writes exactly these, and the service answers a write from them (the stream it
 * just appended to) without depending on how far the projection has got.
 */
export class BusinessRows {
  readonly businesses = new Map<string, BusinessRow>();
  readonly keys = new Map<string, ApiKeyRow>();
  /** Keys revoked by these events, with the time, including keys created before them. */
  readonly revocations = new Map<string, Date>();
  /** Suspensions and reinstatements of businesses created before these events: the last one each. */
  readonly statusChanges = new Map<string, BusinessStatusChange>();
  /**
   * Changes (name, grants, rolled secret) of keys created before these events, merged in order:
   * the projector UPDATEs them (decision 0039).
   */
  readonly keyChanges = new Map<string, KeyChange>();
  /** Checkout settings changed by these events: the last change of each business (decision 0028). */
  readonly checkoutSettings = new Map<string, CheckoutSettingsRow>();

  apply(event: Pick<RecordedEvent, 'type' | 'data' | 'recordedAt'> & { stream?: string }): void {
    const known = asBusinessEvent(event);
    if (!known) return;
    const at = event.recordedAt;
    switch (known.type) {
      case 'BusinessCreated': {
        const d = known.data;
        this.businesses.set(d.business_id, {
          id: d.business_id,
          name: d.name,
          simulated: d.simulated,
          status: 'active',
          website: d.website ?? null,
          support_email: d.support_email ?? null,
          created_at: at,
          updated_at: at,
          suspended_at: null,
          email_alerts: DEFAULT_EMAIL_ALERTS,
          product_updates: DEFAULT_PRODUCT_UPDATES,
          alert_email: null,
          pending_alert_email: null,
          referral_code: d.referral_code ?? null,
          referred_by: d.referred_by?.business_id ?? null,
        });
        break;
      }
      case 'BusinessSettingsChanged': {
        const { business_id, ...changed } = known.data;
        this.change(business_id, { ...changed, updated_at: at });
        break;
      }
      case 'AlertEmailCodeSent':
        this.change(known.data.business_id, { pending_alert_email: known.data.email, updated_at: at });
        break;
      case 'AlertEmailCodeRejected':
        break; // nothing the business object shows
      case 'AlertEmailCodeWithdrawn':
        this.change(known.data.business_id, { pending_alert_email: known.data.restored?.email ?? null, updated_at: at });
        break;
      case 'AlertEmailConfirmed':
        this.change(known.data.business_id, { alert_email: known.data.email, pending_alert_email: null, updated_at: at });
        break;
      case 'ReferralCodeChanged':
        this.change(known.data.business_id, { referral_code: known.data.code, updated_at: at });
        break;
      case 'BusinessSuspended':
        this.changeStatus(businessIdOf(known.data, event.stream), { status: 'suspended', suspended_at: new Date(known.data.suspended_at), updated_at: at });
        break;
      case 'BusinessReinstated':
        this.changeStatus(businessIdOf(known.data, event.stream), { status: 'active', suspended_at: null, updated_at: at });
        break;
      case 'CheckoutSettingsChanged': {
        const { business_id, ...settings } = known.data;
        this.checkoutSettings.set(business_id, { business_id, settings, updated_at: at });
        break;
      }
      case 'ApiKeyCreated': {
        // the row is the key as recorded (ApiKeyRow: key_id as id), name and permissions null where left out
        const { key_id, ...recorded } = known.data;
        this.keys.set(key_id, { id: key_id, ...recorded, name: recorded.name ?? null, permissions: recorded.permissions ?? null, created_at: at, revoked_at: null });
        break;
      }
      case 'ApiKeyUpdated':
      case 'ApiKeyRolled': {
        const { key_id, ...change } = known.data;
        const key = this.keys.get(key_id);
        if (key) Object.assign(key, change);
        else this.keyChanges.set(key_id, { ...this.keyChanges.get(key_id), ...change });
        break;
      }
      case 'ApiKeyRevoked': {
        const key = this.keys.get(known.data.key_id);
        if (key) {
          if (key.revoked_at === null) key.revoked_at = at;
        } else if (!this.revocations.has(known.data.key_id)) this.revocations.set(known.data.key_id, at);
        break;
      }
      default:
        ignoreUnknown(known, undefined); // a type this version does not know shows nothing
    }
  }

  /**
   * A change to a business row: applied to the row when these rows have it (created in these
   * events, or seeded by the caller with the stored row: the projector does), else dropped.
   */
  private change(businessId: string, change: Partial<BusinessRow>): void {
    const row = this.businesses.get(businessId);
    if (row) Object.assign(row, change);
  }

  private changeStatus(businessId: string | null, change: BusinessStatusChange): void {
    if (businessId === null) return;
    const row = this.businesses.get(businessId);
    if (row) Object.assign(row, change);
    else this.statusChanges.set(businessId, change);
  }

  static of(events: Iterable<Pick<RecordedEvent, 'type' | 'data' | 'recordedAt'> & { stream?: string }>): BusinessRows {
    const rows = new BusinessRows();
    for (const event of events) rows.apply(event);
    return rows;
  }
}

function businessIdOf(data: { business_id?: string }, stream: string | undefined): string | null {
  return data.business_id ?? (stream === undefined ? null : BUSINESS_STREAM.parse(stream));
}

function iso(date: Date | string): string {
  return new Date(date).toISOString();
}
