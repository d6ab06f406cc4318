import { Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { ChallengeInput, ChallengeResult, ChallengeVerifier, MAX_CHALLENGE_TOKEN_LENGTH, failed, passed } from './verifier';
import { UsedChallengeTokens } from './used-tokens';

/** Turnstile tokens live 300 s; a used one is remembered a little longer. */
export const TURNSTILE_TOKEN_MEMORY_MS = 10 * 60 * 1000;

export interface TurnstileVerifierOptions {
  /** The widget's secret key (TURNSTILE_SECRET_KEY): sent in the request body only, never logged. */
  secretKey: string;
  /** The siteverify endpoint (TURNSTILE_VERIFY_URL; default https://challenges.cloudflare.com/turnstile/v0/siteverify). */
  verifyUrl: string;
  /** Longest wait for one siteverify answer (default 5 s); one retry follows a network failure. */
  timeoutMs?: number;
  /** Where problems of the deployment are written (default: the Nest logger 'challenge'). */
  log?: (line: string) => void;
}

/** Turnstile's siteverify answer (the fields this verifier reads). */
interface SiteverifyResponse {
  success?: unknown;
  'error-codes'?: unknown;
  action?: unknown;
  hostname?: unknown;
  challenge_ts?: unknown;
  cdata?: unknown;
}

/** error-codes saying the deployment, not the visitor, is at fault: logged for the operator. */
const DEPLOYMENT_ERRORS = ['missing-input-secret', 'invalid-input-secret', 'bad-request', 'internal-error'];

/**
 * Cloudflare Turnstile's server-side validation (siteverify): POST {secret, response, remoteip,
 * idempotency_key} as JSON, answer {success, error-codes, action, hostname, challenge_ts, cdata}.
 *
 * - The form is the widget's `action`: a token whose action is not the form fails (wrong_form).
 *   Turnstile protects the action's integrity, so a token solved on the sign-in page cannot
 *   pass sign-up.
 * - Single use: siteverify answers `timeout-or-duplicate` for a token seen before, and a passed
 *   token is also claimed in the shared used-token store, so two replicas asking Cloudflare at
 *   the same moment (before its "network convergence") cannot both pass it.
 * - Fail closed: a network failure, a timeout, a non-JSON or non-200 answer fails the challenge
 *   (reason unavailable) after one retry with the same idempotency_key (which Turnstile answers
 *   from its first validation instead of calling the token a duplicate). A bot challenge that
 *   opens when its provider is down protects nothing exactly when an attack can cause that.
 */
export class TurnstileVerifier implements ChallengeVerifier {
  private readonly log: (line: string) => void;

  constructor(
    private readonly options: TurnstileVerifierOptions,
    private readonly used: UsedChallengeTokens,
  ) {
    const logger = new Logger('challenge');
    this.log = options.log ?? ((line) => logger.warn(line));
  }

  describe(): string {
    return `Cloudflare Turnstile (${new URL(this.options.verifyUrl).origin})`;
  }

  async verify({ token, form, ip }: ChallengeInput): Promise<ChallengeResult> {
    if (!token) return failed('missing');
    if (token.length > MAX_CHALLENGE_TOKEN_LENGTH) return failed('refused');
    const body = JSON.stringify({ secret: this.options.secretKey, response: token, ...(ip ? { remoteip: ip } : {}), idempotency_key: randomUUID() });
    const answer = (await this.ask(body)) ?? (await this.ask(body));
    if (answer === null) {
      this.log(`Turnstile siteverify at ${new URL(this.options.verifyUrl).origin} could not be reached: challenges fail until it answers`);
      return failed('unavailable');
    }
    const codes = Array.isArray(answer['error-codes']) ? answer['error-codes'].filter((c): c is string => typeof c === 'string') : [];
    if (answer.success !== true) {
      const problems = codes.filter((c) => DEPLOYMENT_ERRORS.includes(c));
      if (problems.length > 0) this.log(`Turnstile siteverify refused this deployment's request (${problems.join(', ')}): check TURNSTILE_SECRET_KEY`);
      if (codes.includes('timeout-or-duplicate')) return failed('already_used');
      return failed(problems.length > 0 ? 'unavailable' : 'refused');
    }
    if (answer.action !== form) return failed('wrong_form');
    try {
      return (await this.used.claim(token, TURNSTILE_TOKEN_MEMORY_MS)) ? passed : failed('already_used');
    } catch {
      return failed('unavailable');
    }
  }

  /** One siteverify call; null when there was no usable answer (network, timeout, status, body). */
  private async ask(body: string): Promise<SiteverifyResponse | null> {
    try {
      const response = await fetch(this.options.verifyUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body,
        signal: AbortSignal.timeout(this.options.timeoutMs ?? 5000),
        redirect: 'error',
      });
      if (response.status !== 200) {
        await response.body?.cancel();
        return null;
      }
      const parsed: unknown = await response.json();
      return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as SiteverifyResponse) : null;
    } catch {
      return null;
    }
  }

  purgeExpired(): Promise<number> {
    return this.used.purgeExpired();
  }

  async close(): Promise<void> {
    await this.used.close();
  }
}
