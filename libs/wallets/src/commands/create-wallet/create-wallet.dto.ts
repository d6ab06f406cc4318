import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsString, MaxLength, MinLength } from 'class-validator';
import { Omittable } from '@lib/http';


/**
 * POST /wallet (decision 0024): the shape of the input. The handler keeps what needs the keys
 * themselves: the phrase a valid BIP-39 English phrase, each xpub an account-level extended public
 * key, the Solana address valid, fields meant for another type refused, keys used by another
 * wallet refused (§7 invalid_request).
 */
export class CreateWalletRequest {
  @Omittable()
  @IsIn(['created', 'imported', 'external'], { message: 'type must be created, imported or external' })
  @IsString()
  @ApiPropertyOptional({
    description:
      '`created` (default): the service makes a new recovery phrase, shown once in the response. `imported`: from your `recovery_phrase`. `external`: a wallet that keeps its own keys, connected by its public keys.',
  })
  type?: string;

  @Omittable()
  @IsString()
  @MinLength(1)
  @MaxLength(1000)
  @ApiPropertyOptional({ description: 'Imported wallets: a BIP-39 English recovery phrase of 12 to 24 words. Sealed at rest; never shown again.' })
  recovery_phrase?: string;

  @Omittable()
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  @ApiPropertyOptional({ description: "External wallets: the EVM account's extended public key (xpub) at m/44'/60'/0'; addresses m/44'/60'/0'/0/i." })
  evm_xpub?: string;

  @Omittable()
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  @ApiPropertyOptional({ description: "External wallets: the Bitcoin BIP-84 account's extended public key (zpub or xpub) at m/84'/0'/0'; native-segwit addresses m/84'/0'/0'/0/i." })
  bitcoin_xpub?: string;

  @Omittable()
  @IsString()
  @MinLength(1)
  @MaxLength(64)
  @ApiPropertyOptional({
    description: 'External wallets: a Solana address. Kept and shown, but one address cannot receive: every checkout needs a fresh address, so Solana checkouts answer 409 not_accepting.',
  })
  solana_address?: string;
}
