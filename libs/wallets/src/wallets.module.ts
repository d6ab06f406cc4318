import { Module } from '@nestjs/common';
import { APP_CONFIG, AppConfig, DATABASE } from '@lib/core';
import type { Sql } from '@lib/database';
import { WalletAddressBook } from './address-book';
import { WalletAddresses } from './addresses';
import { MAILER, MailUnavailableError, Mailer } from '@lib/mail';
import { MailerWalletChangeMail, WALLET_CHANGE_LINK_BASE, WALLET_CHANGE_MAIL } from './changes/wallet-change-mail';
import { WalletChanges } from './changes/wallet-changes';
import { CancelWalletChangeHandler } from './commands/cancel-wallet-change/cancel-wallet-change.handler';
import { CreateWalletHandler } from './commands/create-wallet/create-wallet.handler';
import { DeleteWalletHandler } from './commands/delete-wallet/delete-wallet.handler';
import { FinishSetupHandler } from './commands/finish-setup/finish-setup.handler';
import { RevealRecoveryPhraseHandler } from './commands/reveal-recovery-phrase/reveal-recovery-phrase.handler';
import { GetSetupHandler } from './queries/get-setup/get-setup.handler';
import { serviceKek } from './service-kek';
import { SendFromWalletHandler } from './commands/send-from-wallet/send-from-wallet.handler';
import { GetSendContextHandler } from './queries/get-send-context/get-send-context.handler';
import { GetWalletHandler } from './queries/get-wallet/get-wallet.handler';
import { GetWalletTransactionHandler } from './queries/get-wallet-transaction/get-wallet-transaction.handler';
import { ListWalletTransactionsHandler } from './queries/list-wallet-transactions/list-wallet-transactions.handler';
import { DatabaseSeedVault, SEED_VAULT } from './seed-vault';
import { WalletRelay } from './sends/relay';
import { WalletSendTimers, WalletSendsWorker } from './sends/send-timers';
import { WalletSends } from './sends/wallet-sends';
import { WalletTransactionsReadModel } from './sends/wallet-transactions.read-model';

export const WALLET_HANDLERS = [
  CreateWalletHandler,
  GetWalletHandler,
  SendFromWalletHandler,
  GetWalletTransactionHandler,
  ListWalletTransactionsHandler,
  GetSendContextHandler,
  // deletion and setup (decision 0041)
  DeleteWalletHandler,
  CancelWalletChangeHandler,
  FinishSetupHandler,
  GetSetupHandler,
  // the recovery phrase, shown again (decision 0041 "Recovery phrase")
  RevealRecoveryPhraseHandler,
];

/**
 * The wallets capability in a Nest app: its use cases for the buses, the seed vault sealed under
 * the configured key-encryption key, fresh addresses (WalletAddresses) and the address book the
 * chain watchers read; sends from the wallet, their relay and their settlement (decision 0040). The API and the worker import it; payments uses WalletAddresses.
 */
@Module({
  providers: [
    ...WALLET_HANDLERS,
    WalletAddresses,
    WalletAddressBook,
    // sends (decision 0040)
    WalletSends,
    WalletRelay,
    WalletTransactionsReadModel,
    WalletSendTimers,
    WalletSendsWorker,
    WalletChanges,
    {
      provide: WALLET_CHANGE_MAIL,
      useFactory: (mailer: Mailer | null) => (mailer ? new MailerWalletChangeMail(mailer) : { sendDeletionPending: () => Promise.reject(new MailUnavailableError('No mail server is configured for this deployment.')) }),
      inject: [{ token: MAILER, optional: true }],
    },
    { provide: WALLET_CHANGE_LINK_BASE, useFactory: (config: AppConfig) => process.env.DASHBOARD_URL || config.apiBaseUrl || 'http://localhost:3000', inject: [APP_CONFIG] },
    {
      provide: SEED_VAULT,
      useFactory: (config: AppConfig, db: Sql) => new DatabaseSeedVault(db, serviceKek(config)),
      inject: [APP_CONFIG, DATABASE],
    },
  ],
  exports: [WalletAddresses, WalletAddressBook, SEED_VAULT],
})
export class WalletsModule {}
