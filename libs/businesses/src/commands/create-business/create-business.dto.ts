import { IsBoolean, IsNotEmpty, IsString, MaxLength } from 'class-validator';
import { OptionalText, Trimmed } from '../text';

export const NAME_MAX = 200;
export const WEBSITE_MAX = 2048;
export const EMAIL_MAX = 254;

/**
 * The input of "create a business" (operator CLI, admin endpoint): its shape, in one place.
 * Texts are trimmed; an empty website or support e-mail is none.
 */
export class CreateBusinessDto {
  @Trimmed()
  @IsString({ message: 'name is required' })
  @IsNotEmpty({ message: 'name is required' })
  @MaxLength(NAME_MAX, { message: `name is at most ${NAME_MAX} characters` })
  name!: string;

  @IsBoolean({ message: 'simulated must be true or false' })
  simulated!: boolean;

  @OptionalText('website', WEBSITE_MAX)
  website?: string | null;

  @OptionalText('support_email', EMAIL_MAX)
  support_email?: string | null;
}
