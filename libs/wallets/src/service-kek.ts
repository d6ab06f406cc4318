import type { AppConfig } from '@lib/core';
import { adapterFor } from '@lib/eventstore';
import { KeyEncryptionKey, loadKek } from './key-encryption';

/**
 * The service's one key-encryption key, from its configuration: WALLET_KEK, else WALLET_KEK_FILE,
 * else on the embedded store the development key in DATA_DIR (loadKek). Wallet phrases (0024),
 * TOTP secrets (0036) and webhook signing secrets (0013, addendum of 2026-11-30) are sealed under it.
 */
export function serviceKek(config: AppConfig): KeyEncryptionKey {
  return loadKek({ walletKek: config.walletKek, walletKekFile: config.walletKekFile, dataDir: config.dataDir, embedded: adapterFor(config) === 'embedded' }).kek;
}
