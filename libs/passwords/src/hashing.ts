import { Algorithm, hash, parseOptions, verify } from '@node-rs/argon2';

/**
 * argon2id parameters (decision 0033). OWASP's Password Storage Cheat Sheet lists five
 * equivalent argon2id settings; this is its first: 19 MiB of memory, 2 passes, 1 lane. Measured on
 * the 2-core development machine: about 16 ms per hash (median of 10), well under a sign-in's
 * budget, and the memory cost is what makes GPU guessing expensive. The parameters are written
 * into every PHC string (`$argon2id$v=19$m=19456,t=2,p=1$salt$hash`), so raising them later only
 * needs `needsRehash` at the next successful sign-in.
 */
export interface Argon2Parameters {
  /** Memory in KiB (`m=`). */
  memoryCost: number;
  /** Passes (`t=`). */
  timeCost: number;
  /** Lanes (`p=`). */
  parallelism: number;
}

export const ARGON2_PARAMETERS: Readonly<Argon2Parameters> = Object.freeze({ memoryCost: 19_456, timeCost: 2, parallelism: 1 });

/**
 * Passwords are compared after Unicode NFKC normalisation (NIST SP 800-63B §3.1.1.2): the same
 * password typed on two keyboards that compose accents differently is the same password.
 */
export function normalizePassword(password: string): string {
  return password.normalize('NFKC');
}

/** Hashes and checks passwords with argon2id; the hash is a PHC string carrying its parameters. */
export class PasswordHasher {
  constructor(private readonly parameters: Readonly<Argon2Parameters> = ARGON2_PARAMETERS) {}

  /** A new PHC string with a fresh 16-byte random salt. */
  hash(password: string): Promise<string> {
    return hash(normalizePassword(password), { ...this.parameters, algorithm: Algorithm.Argon2id });
  }

  /**
   * True when `password` matches `phc`. The comparison of the computed and stored hash is the
   * library's constant-time one; a malformed or foreign hash string is simply `false`, never a throw.
   */
  async verify(phc: string, password: string): Promise<boolean> {
    try {
      return await verify(phc, normalizePassword(password));
    } catch {
      return false;
    }
  }

  /**
   * True when `phc` was made with other parameters or another algorithm than today's: the caller
   * rehashes the password it just verified and stores the new string.
   */
  needsRehash(phc: string): boolean {
    try {
      const options = parseOptions(phc);
      return (
        options.algorithm !== Algorithm.Argon2id ||
        options.memoryCost !== this.parameters.memoryCost ||
        options.timeCost !== this.parameters.timeCost ||
        options.parallelism !== this.parameters.parallelism ||
        options.outputLen !== 32
      );
    } catch {
      return true;
    }
  }
}
