/** Nest token of the deployment's ChallengeVerifier (ChallengeModule provides it). */
export const CHALLENGE_VERIFIER = Symbol('CHALLENGE_VERIFIER');

/**
 * The forms a bot challenge protects (spec §5.9). A token is bound to one of them: Turnstile
 * through the widget's `action`, the test verifier through the token's middle part. Add a form
 * here to protect another route.
 */
export const CHALLENGE_FORMS = ['sign_up', 'sign_in', 'password_reset'] as const;
export type ChallengeForm = (typeof CHALLENGE_FORMS)[number];

/** Why a challenge failed: for logs and metrics only, every one answers 400 challenge_failed. */
export type ChallengeFailure =
  /** no token */
  | 'missing'
  /** the provider (or the test verifier) refused it, or it is malformed */
  | 'refused'
  /** the token was solved for another form */
  | 'wrong_form'
  /** the token was used before (or expired: Turnstile does not tell them apart) */
  | 'already_used'
  /** the provider or the used-token store could not be asked: fail closed */
  | 'unavailable'
  /** no verifier configured (a shared store without CHALLENGE_PROVIDER) */
  | 'not_configured';

export type ChallengeResult = { passed: true } | { passed: false; reason: ChallengeFailure };

export interface ChallengeInput {
  /** The Service-Challenge header (undefined or '' when absent). */
  token: string | undefined;
  form: ChallengeForm;
  /** The client's address (request.ip), passed to the provider as remoteip. */
  ip: string | null;
}

/** The port: verifies a bot-challenge token once, for one form. */
export interface ChallengeVerifier {
  verify(input: ChallengeInput): Promise<ChallengeResult>;
  /** A sentence for the start-up log (no secrets). */
  describe(): string;
  /** Deletes used-token records past their time (the SQL store; Redis expires its own); returns how many. */
  purgeExpired(): Promise<number>;
  close(): Promise<void>;
}

export const passed: ChallengeResult = { passed: true };
export const failed = (reason: ChallengeFailure): ChallengeResult => ({ passed: false, reason });

/** The longest token accepted (Turnstile's tokens are at most 2048 characters). */
export const MAX_CHALLENGE_TOKEN_LENGTH = 2048;
