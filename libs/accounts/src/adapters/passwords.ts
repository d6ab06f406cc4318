import { DomainRefusal } from '@lib/domain';
import { PasswordService } from '@lib/passwords';
import type { AccountPasswords } from '../ports';

/** ACCOUNT_PASSWORDS over libs/passwords (argon2id, the policy with its breach check; decision 0033). */
export class PasswordServicePasswords implements AccountPasswords {
  constructor(private readonly passwords: PasswordService) {}

  hash(secret: string): Promise<string> {
    return this.passwords.hash(secret);
  }

  verify(hash: string, secret: string): Promise<boolean> {
    return this.passwords.verify(hash, secret);
  }

  /** The broken rule is said in the message alone: the error envelope is exactly {code, message, field, request_id} (spec §7; decision 0033, addendum of 2026-11-29). */
  async assertStrong(password: string, field: string, context: { email?: string }): Promise<void> {
    const check = await this.passwords.check(password, context);
    if (!check.ok) throw new DomainRefusal('weak_password', check.message, field);
  }
}
