import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HDKey } from '@scure/bip32';
import { mnemonicToSeedSync } from '@scure/bip39';
import { secp256k1 } from '@noble/curves/secp256k1';
import { p2wpkh } from '@scure/btc-signer';
import { bytesToHex } from 'viem';
import { publicKeyToAddress } from 'viem/accounts';
import {
  DEVELOPMENT_KEK_FILE,
  KeyEncryptionKey,
  bitcoinAddress,
  evmAddress,
  keyFingerprint,
  keysOfPhrase,
  loadKek,
  newRecoveryPhrase,
  normalizePhrase,
  parseAccountXpub,
  phraseSeed,
  solanaAddress,
} from '@lib/wallets';

/** The BIP-39 test phrase, whose addresses every wallet shows (the published vectors below). */
const ABANDON = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';

describe('wallet keys (kept libraries, published vectors)', () => {
  const keys = keysOfPhrase(ABANDON);

  it("EVM: m/44'/60'/0'/0/0 of the test phrase is 0x9858EfFD232B4033E47d90003D41EC34EcaEda94, from the account xpub alone", () => {
    expect(evmAddress(keys.evmXpub, 0)).toBe('0x9858EfFD232B4033E47d90003D41EC34EcaEda94');
    expect(evmAddress(keys.evmXpub, 1)).not.toBe(evmAddress(keys.evmXpub, 0));
  });

  it("Bitcoin: BIP-84's vector — the zpub of m/84'/0'/0' and its first receiving address", () => {
    expect(keys.bitcoinXpub).toBe('zpub6rFR7y4Q2AijBEqTUquhVz398htDFrtymD9xYYfG1m4wAcvPhXNfE3EfH1r1ADqtfSdVCToUG868RvUUkgDKf31mGDtKsAYz2oz2AGutZYs');
    expect(bitcoinAddress(keys.bitcoinXpub, 0)).toBe('bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu');
    expect(bitcoinAddress(keys.bitcoinXpub, 1)).toBe('bc1qnjg0jd8228aq7egyzacy8cys3knf9xvrerkf9g');
  });

  it('addresses of several accounts asked in turn are each their own account\'s (the receiving chains kept between calls never mix)', () => {
    const other = keysOfPhrase('legal winner thank year wave sausage worth useful legal winner thank yellow');
    // m/…/0/index derived here from the xpub alone, with no state kept between calls
    const fresh = (xpub: string, index: number): Uint8Array => {
      const versions = xpub.startsWith('zpub') ? { private: 0x04b2430c, public: 0x04b24746 } : { private: 0x0488ade4, public: 0x0488b21e };
      return HDKey.fromExtendedKey(xpub, versions).deriveChild(0).deriveChild(index).publicKey!;
    };
    const seen = new Set<string>();
    for (let round = 0; round < 2; round++) {
      for (let index = 0; index < 4; index++) {
        for (const account of [keys, other]) {
          const evm = evmAddress(account.evmXpub, index);
          expect(evm).toBe(publicKeyToAddress(bytesToHex(secp256k1.ProjectivePoint.fromHex(fresh(account.evmXpub, index)).toRawBytes(false))));
          const bitcoin = bitcoinAddress(account.bitcoinXpub, index);
          expect(bitcoin).toBe(p2wpkh(fresh(account.bitcoinXpub, index)).address);
          seen.add(evm).add(bitcoin);
        }
      }
    }
    expect(seen.size).toBe(16);
  });

  it("Solana: m/44'/501'/0'/0' of the test phrase is HAgk14JpMQLgt6rVgv7cBQFJWFto5Dqxi472uT3DKpqk (Phantom's first account)", () => {
    expect(keys.solanaAddress0).toBe('HAgk14JpMQLgt6rVgv7cBQFJWFto5Dqxi472uT3DKpqk');
    expect(solanaAddress(phraseSeed(ABANDON), 1)).not.toBe(keys.solanaAddress0);
  });

  it("the seed from node:crypto's PBKDF2 is @scure/bip39's", () => {
    const phrase = newRecoveryPhrase();
    expect(Buffer.from(phraseSeed(phrase)).toString('hex')).toBe(Buffer.from(mnemonicToSeedSync(phrase)).toString('hex'));
  });

  it('new phrases are 24 valid words, each different', () => {
    const a = newRecoveryPhrase();
    expect(a.split(' ')).toHaveLength(24);
    expect(normalizePhrase(a)).toBe(a);
    expect(newRecoveryPhrase()).not.toBe(a);
  });

  it('a phrase is normalized (case, spaces) and refused with a bad checksum, an unknown word or a wrong length', () => {
    expect(normalizePhrase(`  ${ABANDON.toUpperCase().replace(/ /g, '   ')} `)).toBe(ABANDON);
    expect(normalizePhrase(ABANDON.replace(/about$/, 'abandon'))).toBeNull(); // checksum
    expect(normalizePhrase(ABANDON.replace(/about$/, 'abouts'))).toBeNull(); // not a word
    expect(normalizePhrase('abandon abandon about')).toBeNull();
  });

  it('only account-level extended PUBLIC keys are taken: not a private key, not another depth, not garbage', () => {
    expect(parseAccountXpub(keys.evmXpub, 'evm')).not.toBeNull();
    expect(parseAccountXpub(keys.bitcoinXpub, 'bitcoin')).not.toBeNull();
    expect(parseAccountXpub(keys.bitcoinXpub, 'evm')).toBeNull(); // a zpub is a Bitcoin key
    const child = parseAccountXpub(keys.evmXpub, 'evm')!.deriveChild(0).publicExtendedKey; // depth 4
    expect(parseAccountXpub(child, 'evm')).toBeNull();
    expect(parseAccountXpub('xprv9s21ZrQH143K3GJpoapnV8SFfukcVBSfeCficPSGfubmSFDxo1kuHnLisriDvSnRRuL2Qrg5ggqHKNVpxR86QEC8w35uxmGoggxtQTPvfUu', 'evm')).toBeNull();
    expect(parseAccountXpub('xpub-not-a-key', 'evm')).toBeNull();
  });

  it('a fingerprint names the key, whatever its spelling: the zpub and the xpub of one account match', () => {
    const account = parseAccountXpub(keys.bitcoinXpub, 'bitcoin')!;
    const asXpub = new HDKey({ publicKey: account.publicKey!, chainCode: account.chainCode!, depth: 3, index: account.index, parentFingerprint: account.parentFingerprint }).publicExtendedKey;
    expect(asXpub.startsWith('xpub')).toBe(true);
    expect(keyFingerprint('bitcoin', asXpub)).toBe(keyFingerprint('bitcoin', keys.bitcoinXpub));
    expect(keyFingerprint('evm', keys.evmXpub)).not.toBe(keyFingerprint('bitcoin', keys.bitcoinXpub));
  });
});

describe('key-encryption key (AES-256-GCM from node:crypto)', () => {
  const kek = KeyEncryptionKey.generate();

  it('seals and opens; another wallet id, another key or a changed byte does not open', () => {
    const sealed = kek.seal(Buffer.from(ABANDON), 'wallet_secret:wal_a');
    expect(sealed.ciphertext.toString('utf8')).not.toContain('abandon');
    expect(kek.open(sealed, 'wallet_secret:wal_a').toString()).toBe(ABANDON);
    expect(() => kek.open(sealed, 'wallet_secret:wal_b')).toThrow();
    expect(() => KeyEncryptionKey.generate().open(sealed, 'wallet_secret:wal_a')).toThrow();
    const tampered = Buffer.from(sealed.ciphertext);
    tampered[0] ^= 1;
    expect(() => kek.open({ ...sealed, ciphertext: tampered }, 'wallet_secret:wal_a')).toThrow();
  });

  it('reads 64 hex digits or base64 of 32 bytes, nothing else', () => {
    const hex = 'ab'.repeat(32);
    expect(KeyEncryptionKey.parse(hex).id).toBe(KeyEncryptionKey.parse(Buffer.from(hex, 'hex').toString('base64')).id);
    expect(() => KeyEncryptionKey.parse('ab'.repeat(31))).toThrow();
    expect(() => KeyEncryptionKey.parse('not a key')).toThrow();
  });

  it('the embedded default makes a development key once, readable by its owner only, and reuses it; a shared store needs one configured', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kek-'));
    try {
      const first = loadKek({ walletKek: null, walletKekFile: null, dataDir: dir, embedded: true });
      expect(first.generated).toBe(true);
      expect(statSync(join(dir, DEVELOPMENT_KEK_FILE)).mode & 0o777).toBe(0o600);
      const again = loadKek({ walletKek: null, walletKekFile: null, dataDir: dir, embedded: true });
      expect(again.generated).toBe(false);
      expect(again.kek.id).toBe(first.kek.id);
      expect(loadKek({ walletKek: null, walletKekFile: join(dir, DEVELOPMENT_KEK_FILE), embedded: false }).kek.id).toBe(first.kek.id);
      expect(readFileSync(join(dir, DEVELOPMENT_KEK_FILE), 'utf8').trim()).toMatch(/^[0-9a-f]{64}$/);
      expect(() => loadKek({ walletKek: null, walletKekFile: null, dataDir: dir, embedded: false })).toThrow(/WALLET_KEK/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
