import { Decider, DomainRefusal, decideBy, ignoreUnknown } from '@lib/domain';
import { AccountEvent, asAccountEvent } from '../events';
import { RecoveryEvent, asRecoveryEvent } from '../recovery/recovery.events';
import { TwoFactorChallengeEvent, TwoFactorEvent, asTwoFactorChallengeEvent, asTwoFactorEvent } from './events';

/**
 * Two-step sign-in's pure deciders (decision 0036), with given/when/then tests in
 * test/accounts/two-factor.decider.spec.ts:
 * - `twoFactorDecider`, on the person's stream (`account-<acc_id>`, beside accountDecider, which
 *   ignores these events as this one ignores its): setup, enabling, codes accepted, disabling;
 * - `twoFactorChallengeDecider`, on `two_factor_challenge-<hash>`: a challenge answered once,
 *   within its 5 minutes.
 * Codes are checked against the secret by the use cases (the secret is not in the log); these
 * deciders hold the rules that need the stream: which setup may be enabled, that a TOTP step
 * or a recovery code is never accepted twice, and that a challenge is over once the password it
 * proved was replaced (addendum of 2026-11-29): the person's decider also folds
 * AccountPasswordChanged (a change or a reset) and EmailChangeUndone into `credentialsVersion`,
 * which a challenge records when it starts and its code must still find.
 */

/** A setup's QR code is valid this long (spec §7 two_factor_setup_required). */
export const TWO_FACTOR_SETUP_LIFETIME_MS = 10 * 60 * 1000;
/** A sign-in challenge is valid this long (challenge_expired). */
export const TWO_FACTOR_CHALLENGE_LIFETIME_MS = 5 * 60 * 1000;
/** Recovery codes given when two-step sign-in is turned on. */
export const RECOVERY_CODE_COUNT = 10;

export interface TwoFactorState {
  /** The last setup started (a newer one replaces it), while two-step sign-in is off. */
  setup: { id: string; sessionId: string; expiresAt: string } | null;
  enabled: {
    setupId: string;
    enabledAt: string;
    recoveryCodeHashes: readonly string[];
    usedRecoveryCodeHashes: readonly string[];
    /** The TOTP step last accepted: a code of this step or an earlier one never passes again. */
    lastTimeStep: number;
  } | null;
  /**
   * How many times the password was replaced (a change or a reset) or an e-mail change undone on
   * the person's stream: each ends the sessions the old password opened, and so the sign-in
   * challenges it opened (a challenge records this when it starts; its code needs the same).
   */
  credentialsVersion: number;
}

/** The events of the person's stream the two-step decider folds: its own, and those that end what the old password opened. */
export type TwoFactorStreamEvent = TwoFactorEvent | Extract<AccountEvent, { type: 'AccountPasswordChanged' }> | Extract<RecoveryEvent, { type: 'EmailChangeUndone' }>;

export function asTwoFactorStreamEvent(event: { stream?: string; type: string; data: unknown }): TwoFactorStreamEvent | null {
  if (event.type === 'AccountPasswordChanged') return asAccountEvent(event) as TwoFactorStreamEvent | null;
  if (event.type === 'EmailChangeUndone') return asRecoveryEvent(event) as TwoFactorStreamEvent | null;
  return asTwoFactorEvent(event);
}

/** A code as the use case checked it: the TOTP step it matched, or a recovery code's hash. */
export type TwoFactorProof = { kind: 'totp'; timeStep: number } | { kind: 'recovery_code'; hash: string };

export type TwoFactorCommand =
  | { type: 'StartTwoFactorSetup'; setupId: string; sessionId: string }
  | { type: 'EnableTwoFactor'; setupId: string; sessionId: string; timeStep: number; recoveryCodeHashes: readonly string[] }
  /** `credentialsVersion`: the one the challenge recorded when it started (null: a challenge recorded before versions were). */
  | { type: 'AcceptTwoFactorCode'; proof: TwoFactorProof; credentialsVersion: number | null }
  | { type: 'DisableTwoFactor'; proof: TwoFactorProof };

export interface TwoFactorContext {
  now: Date;
}

const enabledAlready = () => new DomainRefusal('two_factor_enabled', 'Two-step sign-in is already on.');
const disabledAlready = () => new DomainRefusal('two_factor_disabled', 'Two-step sign-in is off.');
const setupRequired = () => new DomainRefusal('two_factor_setup_required', 'Start the setup in this session first (its QR code is valid 10 minutes).');
const invalidCode = (field: string) => new DomainRefusal('invalid_code', 'The code is wrong, already used or malformed.', field);
export const passwordReplaced = () => new DomainRefusal('challenge_expired', 'This two-step sign-in is no longer valid: the password changed since. Sign in again.', 'challenge_id');

/** Whether a challenge that recorded `credentialsVersion` may still be answered: the password it proved not replaced since (nor an e-mail change undone). */
export const provedPasswordStands = (state: TwoFactorState, credentialsVersion: number | null): boolean => credentialsVersion === state.credentialsVersion;

/** The setup `sessionId` may enable at `now`, or null (none, another session's, or older than 10 minutes). */
export function setupFor(state: TwoFactorState, sessionId: string, now: Date): TwoFactorState['setup'] {
  const setup = state.setup;
  if (setup === null || setup.sessionId !== sessionId || now.getTime() >= Date.parse(setup.expiresAt)) return null;
  return setup;
}

/** The proof accepted (else 400 invalid_code on the field it came in). */
function checkProof(enabled: NonNullable<TwoFactorState['enabled']>, proof: TwoFactorProof): void {
  if (proof.kind === 'totp') {
    if (proof.timeStep <= enabled.lastTimeStep) throw invalidCode('code');
  } else if (!enabled.recoveryCodeHashes.includes(proof.hash) || enabled.usedRecoveryCodeHashes.includes(proof.hash)) {
    throw invalidCode('recovery_code');
  }
}

const accepted = (proof: TwoFactorProof): TwoFactorEvent => ({
  type: 'TwoFactorCodeAccepted',
  data: { time_step: proof.kind === 'totp' ? proof.timeStep : null, recovery_code_hash: proof.kind === 'recovery_code' ? proof.hash : null },
});

export const twoFactorDecider: Decider<TwoFactorCommand, TwoFactorStreamEvent, TwoFactorState, TwoFactorContext> = {
  initialState: { setup: null, enabled: null, credentialsVersion: 0 },
  decide: (command, state, context) =>
    decideBy<TwoFactorCommand, TwoFactorState, TwoFactorContext, TwoFactorStreamEvent>(
      {
        StartTwoFactorSetup(c, s, { now }) {
          if (s.enabled !== null) throw enabledAlready();
          return [{ type: 'TwoFactorSetupStarted', data: { setup_id: c.setupId, session_id: c.sessionId, expires_at: new Date(now.getTime() + TWO_FACTOR_SETUP_LIFETIME_MS).toISOString() } }];
        },
        EnableTwoFactor(c, s, { now }) {
          if (s.enabled !== null) throw enabledAlready();
          const setup = setupFor(s, c.sessionId, now);
          if (setup === null || setup.id !== c.setupId) throw setupRequired();
          return [{ type: 'TwoFactorEnabled', data: { setup_id: setup.id, recovery_code_hashes: [...c.recoveryCodeHashes], time_step: c.timeStep, enabled_at: now.toISOString() } }];
        },
        AcceptTwoFactorCode(c, s) {
          // turned off since the challenge began: the sign-in is over (start again with the password)
          if (s.enabled === null) throw new DomainRefusal('challenge_expired', 'This two-step sign-in is no longer valid: sign in again.');
          // the password the challenge proved was replaced (or an e-mail change undone) since: over, whatever the code
          if (!provedPasswordStands(s, c.credentialsVersion)) throw passwordReplaced();
          checkProof(s.enabled, c.proof);
          return [accepted(c.proof)];
        },
        DisableTwoFactor(c, s) {
          if (s.enabled === null) throw disabledAlready();
          checkProof(s.enabled, c.proof);
          return [accepted(c.proof), { type: 'TwoFactorDisabled', data: { setup_id: s.enabled.setupId } }];
        },
      },
      command,
      state,
      context,
    ),
  evolve(state, event) {
    switch (event.type) {
      case 'TwoFactorSetupStarted':
        return { ...state, setup: { id: event.data.setup_id, sessionId: event.data.session_id, expiresAt: event.data.expires_at } };
      case 'TwoFactorEnabled':
        return {
          ...state,
          setup: null,
          enabled: { setupId: event.data.setup_id, enabledAt: event.data.enabled_at, recoveryCodeHashes: event.data.recovery_code_hashes, usedRecoveryCodeHashes: [], lastTimeStep: event.data.time_step },
        };
      case 'TwoFactorCodeAccepted': {
        const enabled = state.enabled;
        if (enabled === null) return state;
        const d = event.data;
        return {
          ...state,
          enabled: {
            ...enabled,
            lastTimeStep: d.time_step !== null ? Math.max(enabled.lastTimeStep, d.time_step) : enabled.lastTimeStep,
            usedRecoveryCodeHashes: d.recovery_code_hash !== null ? [...enabled.usedRecoveryCodeHashes, d.recovery_code_hash] : enabled.usedRecoveryCodeHashes,
          },
        };
      }
      case 'TwoFactorDisabled':
        return { ...state, setup: null, enabled: null };
      case 'AccountPasswordChanged':
      case 'EmailChangeUndone':
        return { ...state, credentialsVersion: state.credentialsVersion + 1 };
      default:
        return ignoreUnknown(event, state);
    }
  },
  fromStored: asTwoFactorStreamEvent,
};

export interface TwoFactorChallengeState {
  /** `credentialsVersion`: the person's when the password passed (null: recorded before versions were; never answerable). */
  challenge: { accountId: string; expiresAt: string; used: boolean; credentialsVersion: number | null } | null;
}

export type TwoFactorChallengeCommand = { type: 'StartTwoFactorChallenge'; accountId: string; credentialsVersion: number } | { type: 'UseTwoFactorChallenge' };

const challengeExpired = () => new DomainRefusal('challenge_expired', 'This two-step sign-in timed out or was used: sign in again.', 'challenge_id');

/** A challenge that `now` may still answer: started, not used, within its 5 minutes (else 400 challenge_expired). */
export function liveChallenge(state: TwoFactorChallengeState, now: Date): NonNullable<TwoFactorChallengeState['challenge']> {
  const c = state.challenge;
  if (c === null || c.used || now.getTime() >= Date.parse(c.expiresAt)) throw challengeExpired();
  return c;
}

export const twoFactorChallengeDecider: Decider<TwoFactorChallengeCommand, TwoFactorChallengeEvent, TwoFactorChallengeState, TwoFactorContext> = {
  initialState: { challenge: null },
  decide(command, state, { now }) {
    if (command.type === 'StartTwoFactorChallenge') {
      if (state.challenge !== null) {
        if (state.challenge.accountId === command.accountId) return [];
        throw new Error('two-step challenge id decided for two accounts');
      }
      return [
        {
          type: 'TwoFactorChallengeStarted',
          data: { account_id: command.accountId, expires_at: new Date(now.getTime() + TWO_FACTOR_CHALLENGE_LIFETIME_MS).toISOString(), credentials_version: command.credentialsVersion },
        },
      ];
    }
    const challenge = liveChallenge(state, now);
    return [{ type: 'TwoFactorChallengeUsed', data: { account_id: challenge.accountId } }];
  },
  evolve(state, event) {
    switch (event.type) {
      case 'TwoFactorChallengeStarted':
        return { challenge: { accountId: event.data.account_id, expiresAt: event.data.expires_at, used: false, credentialsVersion: event.data.credentials_version ?? null } };
      case 'TwoFactorChallengeUsed':
        return state.challenge === null ? state : { challenge: { ...state.challenge, used: true } };
      default:
        return ignoreUnknown(event, state);
    }
  },
  fromStored: asTwoFactorChallengeEvent,
};
