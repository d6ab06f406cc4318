import { IsBoolean, IsNotEmpty, IsOptional, IsString, MaxLength } from 'class-validator';
import { Trimmed, TrimmedOrNull } from '../text';

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

  @TrimmedOrNull()
  @IsOptional()
  @IsString({ message: 'website must be a string or null' })
  @MaxLength(WEBSITE_MAX, { message: `website is at most ${WEBSITE_MAX} characters` })
  website?: string | null;

  @TrimmedOrNull()
  @IsOptional()
  @IsString({ message: 'support_email must be a string or null' })
  @MaxLength(EMAIL_MAX, { message: `support_email is at most ${EMAIL_MAX} characters` })
  support_email?: string | null;
}
