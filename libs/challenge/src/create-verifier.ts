import { Database } from '@lib/database';
import { TurnstileVerifier } from './turnstile-verifier';
import { TestChallengeVerifier, UnconfiguredChallengeVerifier } from './test-verifier';
import { createUsedChallengeTokens } from './used-tokens';
import { ChallengeVerifier } from './verifier';

export interface ChallengeConfig {
  /** CHALLENGE_PROVIDER after loadConfig (null: a shared store without one). */
  challengeProvider: 'turnstile' | 'test' | null;
  turnstileSecretKey: string | null;
  turnstileVerifyUrl: string;
  redisUrl?: string;
}

/** The verifier of the configuration; used tokens in Redis when configured, else in the database. */
export function createChallengeVerifier(config: ChallengeConfig, db: Database): ChallengeVerifier {
  if (config.challengeProvider === null) return new UnconfiguredChallengeVerifier();
  const used = createUsedChallengeTokens({ redisUrl: config.redisUrl, db });
  if (config.challengeProvider === 'test') return new TestChallengeVerifier(used);
  if (!config.turnstileSecretKey) throw new Error('CHALLENGE_PROVIDER=turnstile needs TURNSTILE_SECRET_KEY');
  return new TurnstileVerifier({ secretKey: config.turnstileSecretKey, verifyUrl: config.turnstileVerifyUrl }, used);
}
