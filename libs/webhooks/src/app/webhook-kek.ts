import type { AppConfig } from '@lib/core';
import { adapterFor } from '@lib/eventstore';
import { KeyEncryptionKey, loadKek } from '@lib/wallets';

/**
 * The key-encryption key webhook signing secrets are sealed under (decision 0013, addendum of
 * 2026-11-30): the service's one KEK, as wallet phrases (0024) and TOTP secrets (0036) have it —
 * WALLET_KEK, else WALLET_KEK_FILE, else on the embedded store the development key in DATA_DIR,
 * through the same loadKek.
 */
export function webhookKek(config: AppConfig): KeyEncryptionKey {
  return loadKek({ walletKek: config.walletKek, walletKekFile: config.walletKekFile, dataDir: config.dataDir, embedded: adapterFor(config) === 'embedded' }).kek;
}
