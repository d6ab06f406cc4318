import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * The key-encryption key (KEK) that wallet secrets are sealed under (decision 0024): AES-256-GCM
 * from node:crypto, a random 96-bit nonce per secret, and the wallet id as additional data, so a
 * sealed secret moved to another wallet's row does not open. The KEK comes from configuration
 * (WALLET_KEK, or WALLET_KEK_FILE), never from the database it protects; the embedded default
 * keeps a generated one beside its data (development only).
 */
export class KeyEncryptionKey {
  /** First 8 bytes of sha256(key), hex: which KEK sealed a secret (to refuse a wrong key clearly, and for rotation). */
  readonly id: string;

  private constructor(private readonly key: Buffer) {
    this.id = createHash('sha256').update(key).digest('hex').slice(0, 16);
  }

  /** 32 bytes written as 64 hex digits or base64 (with or without padding). */
  static parse(text: string): KeyEncryptionKey {
    const trimmed = text.trim();
    const bytes = /^[0-9a-fA-F]{64}$/.test(trimmed) ? Buffer.from(trimmed, 'hex') : /^[A-Za-z0-9+/_-]{43}=?$/.test(trimmed) ? Buffer.from(trimmed, 'base64') : null;
    if (bytes === null || bytes.length !== 32) throw new Error('a wallet key-encryption key is 32 bytes, written as 64 hex digits or base64');
    return new KeyEncryptionKey(bytes);
  }

  static generate(): KeyEncryptionKey {
    return new KeyEncryptionKey(randomBytes(32));
  }

  /** The key as WALLET_KEK takes it (hex). Only for writing the development key file. */
  toText(): string {
    return this.key.toString('hex');
  }

  seal(plaintext: Buffer, additionalData: string): { nonce: Buffer; ciphertext: Buffer; tag: Buffer } {
    const nonce = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, nonce);
    cipher.setAAD(Buffer.from(additionalData, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
    return { nonce, ciphertext, tag: cipher.getAuthTag() };
  }

  /** Throws when the key, the data or the additional data do not match what was sealed. */
  open(sealed: { nonce: Buffer; ciphertext: Buffer; tag: Buffer }, additionalData: string): Buffer {
    const decipher = createDecipheriv('aes-256-gcm', this.key, sealed.nonce);
    decipher.setAAD(Buffer.from(additionalData, 'utf8'));
    decipher.setAuthTag(sealed.tag);
    return Buffer.concat([decipher.update(sealed.ciphertext), decipher.final()]);
  }
}

/** Where the KEK comes from (AppConfig's wallet members). */
export interface KekSource {
  walletKek: string | null;
  walletKekFile: string | null;
  /** The embedded store's folder: a development KEK is kept there when no other is configured. */
  dataDir?: string;
  /** Whether the store is embedded (the only case a KEK may be generated). */
  embedded: boolean;
}

export const DEVELOPMENT_KEK_FILE = 'wallet-kek.key';

/**
 * The KEK of the configuration: WALLET_KEK, else WALLET_KEK_FILE, else — on the embedded default
 * only — `<DATA_DIR>/wallet-kek.key`, created (mode 0600) the first time. A shared store
 * (PostgreSQL) without a configured KEK is refused by loadConfig before anything starts.
 */
export function loadKek(source: KekSource): { kek: KeyEncryptionKey; generated: boolean; from: 'WALLET_KEK' | 'WALLET_KEK_FILE' | 'development file' } {
  if (source.walletKek) return { kek: KeyEncryptionKey.parse(source.walletKek), generated: false, from: 'WALLET_KEK' };
  if (source.walletKekFile) return { kek: KeyEncryptionKey.parse(readFileSync(source.walletKekFile, 'utf8')), generated: false, from: 'WALLET_KEK_FILE' };
  if (!source.embedded || !source.dataDir) throw new Error('WALLET_KEK or WALLET_KEK_FILE is required when the store is shared');
  const file = join(source.dataDir, DEVELOPMENT_KEK_FILE);
  if (existsSync(file)) return { kek: KeyEncryptionKey.parse(readFileSync(file, 'utf8')), generated: false, from: 'development file' };
  const kek = KeyEncryptionKey.generate();
  mkdirSync(dirname(file), { recursive: true });
  try {
    writeFileSync(file, kek.toText() + '\n', { mode: 0o600, flag: 'wx' });
  } catch (error) {
    // another process (the CLI, a second start) wrote it first: use that one
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return { kek: KeyEncryptionKey.parse(readFileSync(file, 'utf8')), generated: false, from: 'development file' };
    throw error;
  }
  chmodSync(file, 0o600);
  return { kek, generated: true, from: 'development file' };
}
