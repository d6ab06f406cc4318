import { Decider, DomainRefusal, decideBy, ignoreUnknown } from '@lib/domain';
import { PasskeyAddedData, PasskeyEvent, PersonEventForPasskeys, StepUpMethod, asPersonEventForPasskeys } from './passkey-events';

/** At most this many passkeys per person (spec §8). */
export const PASSKEYS_MAX = 10;
/** A step-up holds this long (spec §5.6, §8). */
export const STEP_UP_VALIDITY_MS = 15 * 60 * 1000;

export interface PersonPasskey {
  id: string;
  credentialId: string;
  counter: number;
}

/**
 * A person's passkeys and sessions as the passkey rules need them (decision 0037), folded from
 * the person's stream beside decision 0034's account decider (which ignores these events).
 */
export interface PasskeyState {
  accountId: string | null;
  hasPassword: boolean;
  passkeys: readonly PersonPasskey[];
  sessions: readonly string[];
}

export type PasskeyCommand =
  | { type: 'AddPasskey'; passkey: PasskeyAddedData }
  | { type: 'RemovePasskey'; passkeyId: string }
  | { type: 'UsePasskey'; passkeyId: string; counter: number; at: string }
  | { type: 'StepUp'; sessionId: string; method: StepUpMethod; passkeyId: string | null; at: string };

const failed = () => new DomainRefusal('passkey_failed', 'The passkey could not be verified.');

function opened(state: PasskeyState): string {
  if (state.accountId === null) throw new DomainRefusal('not_found', 'No account with this id.');
  return state.accountId;
}

/**
 * - AddPasskey: at most 10 (409 passkey_limit); the same credential twice on this person is 409
 *   passkey_exists (another person's is checked before, on the projection);
 * - RemovePasskey: unknown → 404; the last passkey of a person without a password → 409
 *   last_sign_in_method;
 * - UsePasskey: the signature counter must grow when either side counts (a cloned
 *   authenticator replays an old one) → 400 passkey_failed; 0 and 0 (authenticators without a
 *   counter) pass;
 * - StepUp: on a session of this person still started.
 */
export const passkeyDecider: Decider<PasskeyCommand, PersonEventForPasskeys, PasskeyState> = {
  initialState: { accountId: null, hasPassword: false, passkeys: [], sessions: [] },
  decide: (command, state) =>
    decideBy<PasskeyCommand, PasskeyState, void, PasskeyEvent>(
      {
        AddPasskey(c, s) {
          opened(s);
          if (s.passkeys.some((p) => p.id === c.passkey.passkey_id)) return [];
          if (s.passkeys.some((p) => p.credentialId === c.passkey.credential_id)) throw new DomainRefusal('passkey_exists', 'This passkey is already on an account.');
          if (s.passkeys.length >= PASSKEYS_MAX) throw new DomainRefusal('passkey_limit', `An account has at most ${PASSKEYS_MAX} passkeys: remove one first.`);
          return [{ type: 'PasskeyAdded', data: c.passkey }];
        },
        RemovePasskey(c, s) {
          opened(s);
          if (!s.passkeys.some((p) => p.id === c.passkeyId)) throw new DomainRefusal('not_found', 'No passkey with this id.');
          if (!s.hasPassword && s.passkeys.length === 1) throw new DomainRefusal('last_sign_in_method', 'This is your only way to sign in: add a password (POST /me/password after a step-up) or another passkey first.');
          return [{ type: 'PasskeyRemoved', data: { passkey_id: c.passkeyId } }];
        },
        UsePasskey(c, s) {
          opened(s);
          const passkey = s.passkeys.find((p) => p.id === c.passkeyId);
          if (passkey === undefined) throw new DomainRefusal('passkey_unknown', 'This passkey is not on any account.');
          if ((c.counter > 0 || passkey.counter > 0) && c.counter <= passkey.counter) throw failed();
          return [{ type: 'PasskeyUsed', data: { passkey_id: c.passkeyId, counter: c.counter, at: c.at } }];
        },
        StepUp(c, s) {
          opened(s);
          if (!s.sessions.includes(c.sessionId)) throw new DomainRefusal('not_found', 'No session with this id.');
          return [{ type: 'SessionSteppedUp', data: { session_id: c.sessionId, method: c.method, passkey_id: c.passkeyId, at: c.at } }];
        },
      },
      command,
      state,
      undefined,
    ),
  evolve(state, event: PersonEventForPasskeys) {
    switch (event.type) {
      case 'AccountOpened':
        return { ...state, accountId: event.data.account_id, hasPassword: Boolean(event.data.password_hash) };
      case 'AccountPasswordChanged':
        return { ...state, hasPassword: Boolean(event.data.password_hash) };
      case 'SessionStarted':
        return { ...state, sessions: [...state.sessions, event.data.session_id] };
      case 'SessionEnded':
        return { ...state, sessions: state.sessions.filter((id) => id !== event.data.session_id) };
      case 'PasskeyAdded':
        return { ...state, passkeys: [...state.passkeys, { id: event.data.passkey_id, credentialId: event.data.credential_id, counter: event.data.counter }] };
      case 'PasskeyRemoved':
        return { ...state, passkeys: state.passkeys.filter((p) => p.id !== event.data.passkey_id) };
      case 'PasskeyUsed':
        return { ...state, passkeys: state.passkeys.map((p) => (p.id === event.data.passkey_id ? { ...p, counter: event.data.counter } : p)) };
      case 'SessionSteppedUp':
        return state;
      default:
        return ignoreUnknown(event, state);
    }
  },
  fromStored: asPersonEventForPasskeys,
};
