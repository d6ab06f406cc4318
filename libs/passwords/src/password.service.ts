import { BreachChecker } from './breach';
import { normalizePassword, PasswordHasher } from './hashing';
import { checkPasswordRules, PASSWORD_RULE_MESSAGES, PasswordCheck } from './policy';

/**
 * What the accounts capability calls: `check` a new password against every rule (the breach
 * check last, only for a password the local rules accept), then `hash` it; `verify` a sign-in and
 * `needsRehash` after a successful one. A refused check becomes 400 `weak_password` with the
 * check's message.
 */
export class PasswordService {
  constructor(
    private readonly breaches: BreachChecker,
    private readonly hasher: PasswordHasher = new PasswordHasher(),
  ) {}

  /**
   * The first rule the password breaks, or ok. A breach source that cannot be asked does not
   * refuse the password (decision 0033: fail open, logged by the checker without the password).
   */
  async check(password: string, context: { email?: string | null } = {}): Promise<PasswordCheck> {
    const local = checkPasswordRules(password, context);
    if (!local.ok) return local;
    const breach = await this.breaches.check(normalizePassword(password));
    if (breach === 'breached') return { ok: false, rule: 'breached', message: PASSWORD_RULE_MESSAGES.breached };
    return { ok: true };
  }

  hash(password: string): Promise<string> {
    return this.hasher.hash(password);
  }

  verify(phc: string, password: string): Promise<boolean> {
    return this.hasher.verify(phc, password);
  }

  needsRehash(phc: string): boolean {
    return this.hasher.needsRehash(phc);
  }
}
