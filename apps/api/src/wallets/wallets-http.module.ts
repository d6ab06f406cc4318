import { Module } from '@nestjs/common';
import { WalletsModule } from '@lib/wallets';
import { WalletController } from './wallet.controller';
import { BusinessSetupController, WalletChangesController } from './wallet-changes.controller';

/** The wallet routes over the wallets capability. */
@Module({
  imports: [WalletsModule],
  controllers: [WalletController, WalletChangesController, BusinessSetupController],
})
export class WalletsHttpModule {}
