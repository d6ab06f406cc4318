import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsString, Matches, MaxLength, MinLength } from 'class-validator';
import { Omittable, PlainText } from '@lib/http';


/**
 * POST /wallet/transactions (spec §4, decision 0040): the shape of the input. The handler keeps
 * what needs the registry and the wallet: the asset on the network, the amount's decimals, the
 * address valid and not the wallet's own, the field of the wallet's kind, the signed transaction.
 */
export class SendFromWalletRequest {
  @IsString()
  @MinLength(1)
  @MaxLength(10)
  @ApiProperty({ description: 'The coin: USDC, USDT, ETH, SOL, BTC.', example: 'USDC' })
  asset!: string;

  @IsString()
  @MinLength(1)
  @MaxLength(20)
  @ApiProperty({ description: 'The network: ethereum, polygon, base, arbitrum, solana, bitcoin.', example: 'polygon' })
  network!: string;

  @IsString()
  @Matches(/^(0|[1-9][0-9]{0,39})(\.[0-9]{1,36})?$/, { message: 'amount must be a decimal string such as "12.5"' })
  @ApiProperty({ description: 'Decimal in the coin, no more decimals than the coin has (USDC 6, USDT 6, BTC 8, ETH 18, SOL 9).', example: '12.5' })
  amount!: string;

  @IsString()
  @MinLength(1)
  @MaxLength(100)
  @ApiProperty({ description: 'The recipient: a valid address of the network, not one of the wallet’s own.' })
  to_address!: string;

  @Omittable()
  @IsIn(['slow', 'standard', 'fast'], { message: 'speed must be slow, standard or fast' })
  @IsString()
  @ApiPropertyOptional({ description: '`slow`, `standard` (default) or `fast`: the fee level the dashboard signed with (see GET /wallet/send-context).', enum: ['slow', 'standard', 'fast'] })
  speed?: string;

  @Omittable()
  @IsString()
  @MaxLength(280)
  @PlainText('multi-line')
  @ApiPropertyOptional({ description: 'Up to 280 characters, kept with the record.', maxLength: 280 })
  note?: string;

  @Omittable()
  @IsString()
  @MinLength(1)
  @MaxLength(20_000)
  @ApiPropertyOptional({
    description:
      'Wallets created or imported in the service: EVM — 0x hex of a signed EIP-1559 transaction (a USDC send from an address with no gas may be a `transferWithAuthorization` (EIP-3009) that address signed, submitted and paid for by another address of the wallet); Solana — the base64 wire transaction.',
  })
  signed_transaction?: string;

  @Omittable()
  @IsString()
  @MinLength(1)
  @MaxLength(20_000)
  @ApiPropertyOptional({ description: 'EVM only: a signed gas-funding transaction from another address of the wallet, relayed first.' })
  funding_transaction?: string;

  @Omittable()
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  @ApiPropertyOptional({ description: 'External wallets: the hash of a send made in another app. An unverified record that reserves and deducts nothing.' })
  tx_hash?: string;
}
