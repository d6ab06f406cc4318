import { Inject, Injectable } from '@nestjs/common';
import { DomainRefusal } from '@lib/domain';
import { retryLater } from '../app/account-writes';
import type { LimitedAttempt } from '../ports';
import { TWO_STEP_CODE_LIMIT, TwoStepCodeLimit } from './ports';
import { TwoFactorProof, TwoFactorState } from './two-factor.decider';
import { normalRecoveryCode, normalTotpCode, recoveryCodeHash, totpStep } from './totp';
import { TOTP_VAULT, TotpVault } from './totp-vault';

/** A second factor as a request gives it: an authenticator code or a recovery code (exactly one). */
export interface SecondFactorInput {
  code?: string;
  recovery_code?: string;
}

const invalid = (field: string, message = 'The code is wrong, already used or malformed.') => new DomainRefusal('invalid_code', message, field);

/**
 * Checks a person's second factor (sign-in challenge, turning two-step sign-in off; decision
 * 0036): codes locked after 5 wrong ones (429 too_many_attempts, Retry-After); neither or both
 * of `code` and `recovery_code`, or a malformed one → 400 invalid_code without counting; a
 * wrong one, a TOTP step already used or a used recovery code → counted, 400 invalid_code. The
 * code is judged in a slot of the person's count (decision 0033, addendum of 2026-11-28): at most
 * as many codes in flight as wrong ones are left before the lock, so concurrent guesses never
 * outrun it. The proof is handed to `use`, which decides it on the person's stream (the decider
 * refuses a step or a recovery code accepted meanwhile: released, not counted); once decided the
 * count is cleared. Codes are never logged.
 */
@Injectable()
export class TwoFactorCodes {
  constructor(
    @Inject(TOTP_VAULT) private readonly vault: TotpVault,
    @Inject(TWO_STEP_CODE_LIMIT) private readonly limit: TwoStepCodeLimit,
  ) {}

  async prove<T>(accountId: string, enabled: NonNullable<TwoFactorState['enabled']>, input: SecondFactorInput, now: Date, use: (proof: TwoFactorProof) => Promise<T>): Promise<T> {
    const gate = await this.limit.reserve(accountId);
    if (!gate.allowed) throw retryLater('too_many_attempts', 'Too many wrong codes: wait before trying again.', gate.retryAfterSec);
    try {
      const proof = await this.judge(accountId, enabled, input, now, gate.attempt);
      const result = await use(proof);
      await gate.attempt.succeeded(); // a right code: the count of wrong ones starts again
      return result;
    } finally {
      await gate.attempt.release(); // ended otherwise (malformed, refused by the decider, an exception): freed, not counted
    }
  }

  private async judge(accountId: string, enabled: NonNullable<TwoFactorState['enabled']>, input: SecondFactorInput, now: Date, attempt: LimitedAttempt): Promise<TwoFactorProof> {
    const hasCode = typeof input.code === 'string' && input.code !== '';
    const hasRecovery = typeof input.recovery_code === 'string' && input.recovery_code !== '';
    if (hasCode === hasRecovery) throw invalid('code', 'Give either code (from the authenticator app) or recovery_code.');
    if (hasCode) {
      const code = normalTotpCode(input.code!);
      if (code === null) throw invalid('code', 'A code from the authenticator app is 6 digits.');
      const secret = await this.vault.secret(enabled.setupId, accountId);
      if (secret === null) throw new Error(`two-step sign-in is on for ${accountId} but its secret is not in the vault`);
      const step = await totpStep(secret, code, now, enabled.lastTimeStep);
      if (step === null) return this.failed(attempt, 'code');
      return { kind: 'totp', timeStep: step };
    }
    const normalized = normalRecoveryCode(input.recovery_code!);
    if (normalized === null) throw invalid('recovery_code', 'A recovery code is 16 letters and digits (XXXX-XXXX-XXXX-XXXX).');
    const hash = recoveryCodeHash(accountId, normalized);
    if (!enabled.recoveryCodeHashes.includes(hash) || enabled.usedRecoveryCodeHashes.includes(hash)) return this.failed(attempt, 'recovery_code');
    return { kind: 'recovery_code', hash };
  }

  private async failed(attempt: LimitedAttempt, field: string): Promise<never> {
    await attempt.failed();
    throw invalid(field);
  }
}
