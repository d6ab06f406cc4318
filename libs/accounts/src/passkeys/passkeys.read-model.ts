import { Inject, Injectable } from '@nestjs/common';
import { DATABASE } from '@lib/core';
import type { Sql } from '@lib/database';
import { Page, accountFilters, pageRequest, toPage, unfilteredListQuery } from '@lib/http';
import { isAccountId } from '../stream-categories';

/** A passkey as GET /me/passkeys lists it (its public key is not shown). */
export interface PasskeyView {
  kind: 'passkey';
  id: string;
  name: string;
  transports: string[];
  /** `multiDevice`: synced between the person's devices (a platform passkey); `singleDevice`: a security key. */
  device_type: 'singleDevice' | 'multiDevice';
  backed_up: boolean;
  created_at: string;
  last_used_at: string | null;
}

/** What sign-in and step-up need of a stored passkey. */
export interface StoredPasskey {
  id: string;
  accountId: string;
  credentialId: string;
  publicKey: string;
  counter: number;
  transports: string[];
}

interface PasskeyRow {
  id: string;
  account_id: string;
  credential_id: string;
  public_key: string;
  counter: string | number;
  transports: string;
  name: string;
  device_type: 'singleDevice' | 'multiDevice';
  backed_up: boolean;
  created_at: string | Date;
  last_used_at: string | Date | null;
}

export const PASSKEY_ID_PATTERN = /^pky_[0-9A-Za-z]{1,64}$/;
const iso = (v: string | Date) => new Date(v).toISOString();
const PASSKEYS_LIST = 'passkeys';

/** Queries over the `account_passkeys` projection (decision 0037). */
@Injectable()
export class PasskeysReadModel {
  constructor(@Inject(DATABASE) private readonly db: Sql) {}

  /**
   * GET /me/passkeys: a page of the person's passkeys, oldest first (created_at, then id), after
   * the cursor's (bound to this list and to the person).
   */
  async page(accountId: string, query: Record<string, unknown> | null | undefined): Promise<Page<PasskeyView>> {
    const bound = accountFilters(accountId);
    const { limit, after } = pageRequest(PASSKEYS_LIST, bound, unfilteredListQuery(query));
    const params: unknown[] = [accountId];
    const param = (value: unknown): string => `$${params.push(value)}`;
    const where = ['account_id = $1'];
    if (after) where.push(`(created_at, id) > (${param(after.created_at)}::timestamptz, ${param(after.id)})`);
    const { rows } = await this.db.query<PasskeyRow>(`SELECT * FROM account_passkeys WHERE ${where.join(' AND ')} ORDER BY created_at, id LIMIT ${param(limit + 1)}`, params);
    return toPage(PASSKEYS_LIST, bound, rows.map(view), limit, (v) => ({ created_at: v.created_at, id: v.id }));
  }

  async list(accountId: string): Promise<PasskeyView[]> {
    if (!isAccountId(accountId)) return [];
    const { rows } = await this.db.query<PasskeyRow>(`SELECT * FROM account_passkeys WHERE account_id = $1 ORDER BY created_at, id`, [accountId], 'passkeys_by_account');
    return rows.map(view);
  }

  async one(accountId: string, passkeyId: string): Promise<PasskeyView | null> {
    if (!PASSKEY_ID_PATTERN.test(passkeyId)) return null;
    return (await this.list(accountId)).find((p) => p.id === passkeyId) ?? null;
  }

  async stored(accountId: string): Promise<StoredPasskey[]> {
    if (!isAccountId(accountId)) return [];
    const { rows } = await this.db.query<PasskeyRow>(`SELECT * FROM account_passkeys WHERE account_id = $1 ORDER BY created_at, id`, [accountId], 'passkeys_by_account');
    return rows.map(stored);
  }

  /** The passkey with this credential id, on whichever account holds it. */
  async byCredential(credentialId: string): Promise<StoredPasskey | null> {
    const { rows } = await this.db.query<PasskeyRow>(`SELECT * FROM account_passkeys WHERE credential_id = $1`, [credentialId], 'passkeys_by_credential');
    return rows[0] ? stored(rows[0]) : null;
  }

  /** When the session last stepped up (null: never). */
  async steppedUpAt(sessionId: string): Promise<Date | null> {
    const { rows } = await this.db.query<{ at: string | Date }>(`SELECT at FROM account_step_ups WHERE session_id = $1`, [sessionId], 'passkeys_step_up');
    return rows[0] ? new Date(rows[0].at) : null;
  }
}

function view(r: PasskeyRow): PasskeyView {
  return {
    kind: 'passkey',
    id: r.id,
    name: r.name,
    transports: JSON.parse(r.transports) as string[],
    device_type: r.device_type,
    backed_up: r.backed_up,
    created_at: iso(r.created_at),
    last_used_at: r.last_used_at === null ? null : iso(r.last_used_at),
  };
}

function stored(r: PasskeyRow): StoredPasskey {
  return { id: r.id, accountId: r.account_id, credentialId: r.credential_id, publicKey: r.public_key, counter: Number(r.counter), transports: JSON.parse(r.transports) as string[] };
}
