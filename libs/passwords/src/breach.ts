import { createHash } from 'node:crypto';

/** `breached` / `clean`, or `unknown` when the source could not be asked (the caller decides). */
export type BreachResult = 'breached' | 'clean' | 'unknown';

/** Whether a password is known from data breaches. */
export interface BreachChecker {
  check(password: string): Promise<BreachResult>;
}

export const BREACH_CHECKER = Symbol('BREACH_CHECKER');

export function sha1Hex(password: string): string {
  return createHash('sha1').update(password, 'utf8').digest('hex').toUpperCase();
}

/**
 * A fixed list (tests, and the embedded default where no network is assumed): the passwords
 * themselves or their SHA-1 hex digests.
 */
export class OfflineBreachList implements BreachChecker {
  private readonly digests: Set<string>;

  constructor(passwords: Iterable<string> = [], sha1Digests: Iterable<string> = []) {
    this.digests = new Set([...[...passwords].map(sha1Hex), ...[...sha1Digests].map((d) => d.toUpperCase())]);
  }

  async check(password: string): Promise<BreachResult> {
    return this.digests.has(sha1Hex(password)) ? 'breached' : 'clean';
  }
}

export const PWNED_PASSWORDS_URL = 'https://api.pwnedpasswords.com';

export interface PwnedPasswordsOptions {
  /** Base URL (default PWNED_PASSWORDS_URL); tests point it at a local server. */
  baseUrl?: string;
  /** Longest wait for an answer (default 2000 ms); later counts as `unknown`. */
  timeoutMs?: number;
  /** Told when the API cannot be asked (never the password, its hash or its prefix). */
  onUnavailable?: (reason: string) => void;
  fetch?: typeof fetch;
}

/**
 * Have I Been Pwned's Pwned Passwords range API (k-anonymity): only the first 5 hex characters
 * of the password's SHA-1 leave the process (GET /range/{prefix}); the answer lists every known
 * suffix with that prefix (`SUFFIX:COUNT` lines), and the match is made here. `Add-Padding: true`
 * makes the API pad its answer with fake suffixes of count 0, so the answer's size does not tell
 * an observer the prefix; padded lines (count 0) are not breaches.
 *
 * An unreachable, slow or failing API gives `unknown` and one line through `onUnavailable`
 * (decision 0033: the password policy then fails open).
 */
export class PwnedPasswordsChecker implements BreachChecker {
  private readonly baseUrl: string;
  private readonly timeoutMs: number;
  private readonly onUnavailable: (reason: string) => void;
  private readonly fetch: typeof fetch;

  constructor(options: PwnedPasswordsOptions = {}) {
    this.baseUrl = (options.baseUrl ?? PWNED_PASSWORDS_URL).replace(/\/+$/, '');
    this.timeoutMs = options.timeoutMs ?? 2000;
    this.onUnavailable = options.onUnavailable ?? ((reason) => console.warn(`[passwords] breach check unavailable, password accepted without it: ${reason}`));
    this.fetch = options.fetch ?? fetch;
  }

  async check(password: string): Promise<BreachResult> {
    const digest = sha1Hex(password);
    const prefix = digest.slice(0, 5);
    const suffix = digest.slice(5);
    let body: string;
    try {
      const response = await this.fetch(`${this.baseUrl}/range/${prefix}`, {
        headers: { 'Add-Padding': 'true', 'User-Agent': 'payments-service' },
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      if (!response.ok) {
        await response.body?.cancel().catch(() => undefined);
        return this.unavailable(`HTTP ${response.status}`);
      }
      body = await response.text();
    } catch (error) {
      return this.unavailable(error instanceof Error ? `${error.name}: ${error.message}` : 'request failed');
    }
    for (const line of body.split(/\r?\n/)) {
      const [lineSuffix, count] = line.trim().split(':');
      if (lineSuffix?.toUpperCase() === suffix && Number(count) > 0) return 'breached';
    }
    return 'clean';
  }

  private unavailable(reason: string): BreachResult {
    try {
      this.onUnavailable(reason);
    } catch {
      // a throwing logger must not fail the sign-up
    }
    return 'unknown';
  }
}
