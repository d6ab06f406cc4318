import { Decider, DomainRefusal, decideBy, ignoreUnknown, repeatedCreation } from '@lib/domain';
import { AccountEmailEvent, AccountEvent, AccountRole, SessionEndReason, SessionStartedData, asAccountEmailEvent, asAccountEvent } from './events';

/**
 * The accounts capability's pure deciders (decision 0034), with given/when/then tests in
 * test/accounts/account.decider.spec.ts:
 * - `accountDecider`: one person's stream (`account-<acc_id>`): opened, the businesses they act
 *   for (and their role), sessions started and ended, password changes;
 * - `accountEmailDecider`: one address's stream (`account_email-<fingerprint>`): the sign-up
 *   pending for it, and the account holding it (409 email_taken).
 */

export interface AccountSession {
  id: string;
  tokenHash: string;
  deviceHash: string;
  expiresAt: string;
}

export interface AccountState {
  account: { id: string; email: string; passwordHash: string | null } | null;
  businesses: readonly { businessId: string; role: AccountRole }[];
  /** Sessions started and not ended (some may have expired: expiry is a matter of time, not of events). */
  sessions: readonly AccountSession[];
}

export type AccountCommand =
  | { type: 'OpenAccount'; accountId: string; email: string; passwordHash: string | null; signupId: string | null }
  | { type: 'JoinBusiness'; businessId: string; role: AccountRole }
  | { type: 'StartSession'; session: SessionStartedData }
  | { type: 'EndSession'; sessionId: string; currentSessionId: string | null; reason: SessionEndReason }
  /** `first`: a password set without the current one (a person who has none, stepped up; decision 0037 addendum of 2026-11-29): refused once one exists. */
  | { type: 'ChangePassword'; passwordHash: string; keepSessionId: string | null; first?: boolean };

const noAccount = () => new DomainRefusal('not_found', 'No account with this id.');

function opened(state: AccountState) {
  if (state.account === null) throw noAccount();
  return state.account;
}

export const accountDecider: Decider<AccountCommand, AccountEvent, AccountState> = {
  initialState: { account: null, businesses: [], sessions: [] },
  decide: (command, state) =>
    decideBy<AccountCommand, AccountState, void, AccountEvent>(
      {
        OpenAccount(c, s) {
          if (repeatedCreation('account', s.account?.id ?? null, c.accountId)) return [];
          return [{ type: 'AccountOpened', data: { account_id: c.accountId, email: c.email, password_hash: c.passwordHash, signup_id: c.signupId } }];
        },
        JoinBusiness(c, s) {
          const account = opened(s);
          if (s.businesses.some((b) => b.businessId === c.businessId && b.role === c.role)) return [];
          return [{ type: 'AccountBusinessJoined', data: { account_id: account.id, business_id: c.businessId, role: c.role } }];
        },
        StartSession(c, s) {
          opened(s);
          if (s.sessions.some((x) => x.id === c.session.session_id)) return [];
          return [{ type: 'SessionStarted', data: c.session }];
        },
        EndSession(c, s) {
          opened(s);
          if (!s.sessions.some((x) => x.id === c.sessionId)) throw new DomainRefusal('not_found', 'No session with this id.');
          if (c.reason === 'revoked' && c.sessionId === c.currentSessionId) throw new DomainRefusal('current_session', 'This is the session you are using: sign out to end it.');
          return [{ type: 'SessionEnded', data: { session_id: c.sessionId, reason: c.reason } }];
        },
        ChangePassword(c, s) {
          const account = opened(s);
          if (c.first === true && account.passwordHash !== null) throw new DomainRefusal('invalid_request', 'current_password is required.', 'current_password');
          // the session asking ended meanwhile (another change of the password ended it: people audit O2, 2026-11-29): its change
          // would replace a password it no longer holds a session for, and the 200 would report a password that does not work
          if (c.keepSessionId !== null && !s.sessions.some((x) => x.id === c.keepSessionId)) {
            throw new DomainRefusal('unauthenticated', 'This session ended while the password was being changed: sign in again.');
          }
          const others = s.sessions.filter((x) => x.id !== c.keepSessionId);
          return [
            { type: 'AccountPasswordChanged', data: { account_id: account.id, password_hash: c.passwordHash } },
            ...others.map((x): AccountEvent => ({ type: 'SessionEnded', data: { session_id: x.id, reason: 'password_changed' } })),
          ];
        },
      },
      command,
      state,
      undefined,
    ),
  evolve(state, event) {
    switch (event.type) {
      case 'AccountOpened':
        return { ...state, account: { id: event.data.account_id, email: event.data.email, passwordHash: event.data.password_hash } };
      case 'AccountBusinessJoined':
        return { ...state, businesses: [...state.businesses.filter((b) => b.businessId !== event.data.business_id), { businessId: event.data.business_id, role: event.data.role }] };
      case 'SessionStarted': {
        const d = event.data;
        return { ...state, sessions: [...state.sessions, { id: d.session_id, tokenHash: d.token_hash, deviceHash: d.device_hash, expiresAt: d.expires_at }] };
      }
      case 'SessionEnded':
        return { ...state, sessions: state.sessions.filter((x) => x.id !== event.data.session_id) };
      case 'AccountPasswordChanged':
        return state.account === null ? state : { ...state, account: { ...state.account, passwordHash: event.data.password_hash } };
      default:
        return ignoreUnknown(event, state);
    }
  },
  fromStored: asAccountEvent,
};

export interface AccountEmailState {
  holder: string | null;
  pendingSignup: string | null;
}

export type AccountEmailCommand =
  | { type: 'NoteSignup'; email: string; signupId: string }
  | { type: 'ClaimAccountEmail'; email: string; accountId: string; signupId: string }
  /** An e-mail change (or its undo) moves the account here: no sign-up needed; a pending sign-up is replaced (decision 0038). */
  | { type: 'ClaimEmailForChange'; email: string; accountId: string }
  /** The account leaves this address (its change or undo claimed another): nothing when it is not the holder. */
  | { type: 'ReleaseAccountEmail'; email: string; accountId: string };

const taken = () => new DomainRefusal('email_taken', 'Another account uses this e-mail address.', 'email');

/**
 * An address held by an account refuses new sign-ups (409 email_taken). A new sign-up replaces
 * the one pending; only the pending sign-up can claim the address (a replaced one is 400
 * verification_expired). Claiming it again for the same account changes nothing.
 */
export const accountEmailDecider: Decider<AccountEmailCommand, AccountEmailEvent, AccountEmailState> = {
  initialState: { holder: null, pendingSignup: null },
  decide(command, state) {
    if (command.type === 'ReleaseAccountEmail') {
      return state.holder === command.accountId ? [{ type: 'AccountEmailReleased', data: { email: command.email, account_id: command.accountId } }] : [];
    }
    if (command.type === 'ClaimEmailForChange') {
      if (state.holder === command.accountId) return [];
      if (state.holder !== null) throw taken();
      return [{ type: 'AccountEmailClaimed', data: { email: command.email, account_id: command.accountId } }];
    }
    if (command.type === 'NoteSignup') {
      if (state.holder !== null) throw taken();
      return state.pendingSignup === command.signupId ? [] : [{ type: 'AccountEmailSignupStarted', data: { email: command.email, signup_id: command.signupId } }];
    }
    if (state.holder === command.accountId) return [];
    if (state.holder !== null) throw taken();
    if (state.pendingSignup !== command.signupId) throw new DomainRefusal('verification_expired', 'A newer sign-up for this address replaced this one.');
    return [{ type: 'AccountEmailClaimed', data: { email: command.email, account_id: command.accountId } }];
  },
  evolve(state, event) {
    switch (event.type) {
      case 'AccountEmailSignupStarted':
        return { ...state, pendingSignup: event.data.signup_id };
      case 'AccountEmailClaimed':
        return { holder: event.data.account_id, pendingSignup: null };
      case 'AccountEmailReleased':
        return state.holder === event.data.account_id ? { ...state, holder: null } : state;
      default:
        return ignoreUnknown(event, state);
    }
  },
  fromStored: asAccountEmailEvent,
};
