import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { BUSINESS_NAME_MAX, OptionalFlag, RequiredName } from '../account-input';

/** POST /businesses (decision 0039): a signed-in person creates another business and becomes its owner. */
export class OpenBusinessRequest {
  @RequiredName('name', BUSINESS_NAME_MAX)
  @ApiProperty({ description: 'The business’s name.', maxLength: BUSINESS_NAME_MAX })
  name!: string;

  @OptionalFlag('simulated')
  @ApiPropertyOptional({ description: 'A simulated business (test keys, no chain watched). Default false: a live business, as at sign-up.' })
  simulated?: boolean;
}
