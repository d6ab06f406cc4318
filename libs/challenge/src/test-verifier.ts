import { CHALLENGE_FORMS, ChallengeInput, ChallengeResult, ChallengeVerifier, MAX_CHALLENGE_TOKEN_LENGTH, failed, passed } from './verifier';
import { UsedChallengeTokens } from './used-tokens';

/** How long the test verifier remembers a used token (a test token carries no time of its own). */
export const TEST_TOKEN_MEMORY_MS = 24 * 3600 * 1000;

/**
 * A test token: `test_pass.<form>.<nonce>`, the nonce 8 to 128 of [A-Za-z0-9_-]. It passes once,
 * for that form only. Anything else (for example `test_fail.sign_in.x`) is refused.
 */
export const TEST_TOKEN_PATTERN = /^test_pass\.([a-z_]+)\.([A-Za-z0-9_-]{8,128})$/;

/** A fresh passing test token for a form (tests and local clients build the same by hand). */
export function testChallengeToken(form: string, nonce = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 10)}`): string {
  return `test_pass.${form}.${nonce}`;
}

/**
 * The verifier of simulated and local deployments (CHALLENGE_PROVIDER=test, the embedded
 * default) and of the tests: no provider, a documented token shape instead (TEST_TOKEN_PATTERN).
 * Single use holds across processes: used tokens go to the shared store (Redis, else the
 * database). Never for a deployment open to the Internet: anyone can write a test token.
 */
export class TestChallengeVerifier implements ChallengeVerifier {
  constructor(private readonly used: UsedChallengeTokens) {}

  describe(): string {
    return 'the test verifier (tokens test_pass.<form>.<nonce>, each passing once): not for a public deployment';
  }

  async verify({ token, form }: ChallengeInput): Promise<ChallengeResult> {
    if (!token) return failed('missing');
    if (token.length > MAX_CHALLENGE_TOKEN_LENGTH) return failed('refused');
    const match = TEST_TOKEN_PATTERN.exec(token);
    if (!match || !(CHALLENGE_FORMS as readonly string[]).includes(match[1])) return failed('refused');
    if (match[1] !== form) return failed('wrong_form');
    try {
      return (await this.used.claim(token, TEST_TOKEN_MEMORY_MS)) ? passed : failed('already_used');
    } catch {
      return failed('unavailable');
    }
  }

  purgeExpired(): Promise<number> {
    return this.used.purgeExpired();
  }

  async close(): Promise<void> {
    await this.used.close();
  }
}

/** A shared store without CHALLENGE_PROVIDER: every challenge fails until the deployment chooses a provider. */
export class UnconfiguredChallengeVerifier implements ChallengeVerifier {
  describe(): string {
    return 'nothing: CHALLENGE_PROVIDER is not set, so every challenge fails (sign-up, sign-in and password reset answer challenge_failed)';
  }

  async verify(): Promise<ChallengeResult> {
    return failed('not_configured');
  }

  async purgeExpired(): Promise<number> {
    return 0;
  }

  async close(): Promise<void> {}
}
