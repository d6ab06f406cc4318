import { Module } from '@nestjs/common';
import { WalletsModule } from '@lib/wallets';
import { WalletController } from './wallet.controller';

/** The wallet routes over the wallets capability. */
@Module({
  imports: [WalletsModule],
  controllers: [WalletController],
})
export class WalletsHttpModule {}
