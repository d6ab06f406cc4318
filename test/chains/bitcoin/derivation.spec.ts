import { HDKey } from '@scure/bip32';
import { mnemonicToSeedSync } from '@scure/bip39';
import { Bip84Account, BitcoinKeyError, bip84ReceivingAddress } from '../../../libs/chains/src/bitcoin';
import { isValidBitcoinAddress } from '../../../libs/chains/src/registry';

/**
 * BIP-84's published test vectors (bitcoin/bips, bip-0084.mediawiki, "Test vectors"): the
 * mnemonic, its root and account-0 private keys (zprv), and the first receiving addresses. The
 * account zpub is derived here from the published account zprv (the BIP text gives the private
 * one) and must equal the widely quoted zpub6rFR7y4Q2Aij…AYz2oz2AGutZYs; the service only ever
 * sees the zpub.
 */
const MNEMONIC = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
const ROOT_ZPRV = 'zprvAWgYBBk7JR8Gjrh4UJQ2uJdG1r3WNRRfURiABBE3RvMXYSrRJL62XuezvGdPvG6GFBZduosCc1YP5wixPox7zhZLfiUm8aunE96BBa4Kei5';
const ACCOUNT_ZPRV = 'zprvAdG4iTXWBoARxkkzNpNh8r6Qag3irQB8PzEMkAFeTRXxHpbF9z4QgEvBRmfvqWvGp42t42nvgGpNgYSJA9iefm1yYNZKEm7z6qUWCroSQnE';
const ACCOUNT_ZPUB = 'zpub6rFR7y4Q2AijBEqTUquhVz398htDFrtymD9xYYfG1m4wAcvPhXNfE3EfH1r1ADqtfSdVCToUG868RvUUkgDKf31mGDtKsAYz2oz2AGutZYs';
const RECEIVING = ['bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu', 'bc1qnjg0jd8228aq7egyzacy8cys3knf9xvrerkf9g'];
const ZPRV = { private: 0x04b2430c, public: 0x04b24746 };
const XPRV = { private: 0x0488ade4, public: 0x0488b21e };
const VPRV = { private: 0x045f18bc, public: 0x045f1cf6 };

const master = (versions: { private: number; public: number }) => HDKey.fromMasterSeed(mnemonicToSeedSync(MNEMONIC), versions);

describe('BIP-84 receiving addresses', () => {
  it('the published vectors hold together: mnemonic → root zprv → account zprv → the account zpub', () => {
    const root = master(ZPRV);
    expect(root.privateExtendedKey).toBe(ROOT_ZPRV);
    const account = root.derive("m/84'/0'/0'");
    expect(account.privateExtendedKey).toBe(ACCOUNT_ZPRV);
    expect(account.publicExtendedKey).toBe(ACCOUNT_ZPUB);
  });

  it('derives the published first and second receiving addresses from the zpub', () => {
    const account = Bip84Account.parse(ACCOUNT_ZPUB);
    expect([account.receivingAddress(0), account.receivingAddress(1)]).toEqual(RECEIVING);
    expect(bip84ReceivingAddress(ACCOUNT_ZPUB, 0)).toBe(RECEIVING[0]);
    for (let i = 0; i < 20; i++) expect(isValidBitcoinAddress(account.receivingAddress(i))).toBe(true);
  });

  it('derives the same addresses from the same account serialized as an xpub (as Ledger and Trezor export it)', () => {
    const xpub = master(XPRV).derive("m/84'/0'/0'").publicExtendedKey;
    expect(xpub.startsWith('xpub')).toBe(true);
    const account = Bip84Account.parse(xpub);
    expect([account.receivingAddress(0), account.receivingAddress(1)]).toEqual(RECEIVING);
  });

  it('derives testnet (tb1q…) and regtest (bcrt1q…) addresses from a vpub at m/84\'/1\'/0\'', () => {
    const vpub = master(VPRV).derive("m/84'/1'/0'").publicExtendedKey;
    expect(vpub.startsWith('vpub')).toBe(true);
    expect(Bip84Account.parse(vpub, { chain: 'testnet' }).receivingAddress(0)).toMatch(/^tb1q[02-9ac-hj-np-z]{38}$/);
    expect(Bip84Account.parse(vpub, { chain: 'regtest' }).receivingAddress(0)).toMatch(/^bcrt1q/);
  });

  const refused = (key: string, options: { chain?: 'mainnet' | 'testnet' | 'regtest'; field?: string } = {}): BitcoinKeyError => {
    try {
      Bip84Account.parse(key, options);
    } catch (error) {
      if (error instanceof BitcoinKeyError) return error;
      throw error;
    }
    throw new Error(`accepted ${key}`);
  };

  it('refuses private keys: the service never holds one', () => {
    expect(refused(ACCOUNT_ZPRV).message).toMatch(/private key/);
    expect(refused(master(XPRV).derive("m/84'/0'/0'").privateExtendedKey).message).toMatch(/private key/);
  });

  it('refuses a BIP-49 ypub, a testnet key on mainnet (and the reverse), and keys not at account depth', () => {
    const ypub = HDKey.fromMasterSeed(mnemonicToSeedSync(MNEMONIC), { private: 0x049d7878, public: 0x049d7cb2 }).derive("m/49'/0'/0'").publicExtendedKey;
    expect(refused(ypub).message).toMatch(/BIP-49/);
    const vpub = master(VPRV).derive("m/84'/1'/0'").publicExtendedKey;
    expect(refused(vpub).message).toMatch(/test-network key/);
    expect(refused(ACCOUNT_ZPUB, { chain: 'testnet' }).message).toMatch(/mainnet key/);
    expect(refused(master(ZPRV).publicExtendedKey).message).toMatch(/depth 0/);
    expect(refused(master(ZPRV).derive("m/84'/0'/0'/0").publicExtendedKey).message).toMatch(/depth 4/);
  });

  it('refuses what is not an extended key, naming the field', () => {
    const error = refused('zpub-not-really', { field: 'wallet.xpub' });
    expect(error).toMatchObject({ code: 'invalid_extended_key', field: 'wallet.xpub' });
    expect(refused('').code).toBe('invalid_extended_key');
    // the account zpub with its last nine characters wrong (as it was once quoted to us): the checksum catches it
    const mistyped = 'zpub6rFR7y4Q2AijBEqTUquhVz398htDFrtymD9xYYfG1m4wAcvPhXNfE3EfH1r1ADqtfSdVCToUG868RvUUkgDKf31mGDtKsAYz2oBQ9xCQMfZ';
    expect(mistyped.slice(0, -9)).toBe(ACCOUNT_ZPUB.slice(0, -9));
    expect(refused(mistyped).message).toMatch(/Base58Check/);
    expect(refused('bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu').code).toBe('invalid_extended_key');
  });

  it('refuses an index outside 0 … 2^31 − 1 (hardened children need the private key)', () => {
    const account = Bip84Account.parse(ACCOUNT_ZPUB);
    expect(() => account.receivingAddress(-1)).toThrow(RangeError);
    expect(() => account.receivingAddress(0x80000000)).toThrow(RangeError);
    expect(() => account.receivingAddress(1.5)).toThrow(RangeError);
    expect(account.receivingAddress(0x7fffffff)).toMatch(/^bc1q/);
  });
});
