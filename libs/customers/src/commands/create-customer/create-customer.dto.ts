import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { CUSTOMER_EMAIL_MAX, CUSTOMER_NAME_MAX, CUSTOMER_NOTE_MAX, CustomerEmail, CustomerText } from '../customer-input';

/** POST /customers (decision 0029): the shape of the input. */
export class CreateCustomerRequest {
  @CustomerEmail(true)
  @ApiProperty({ description: 'The customer’s e-mail address (compared case-insensitively): one customer per address and business.', maxLength: CUSTOMER_EMAIL_MAX })
  email!: string;

  @CustomerText('name', CUSTOMER_NAME_MAX, true)
  @ApiPropertyOptional({ description: 'The customer’s name; null or left out: none.', nullable: true, maxLength: CUSTOMER_NAME_MAX })
  name?: string | null;

  @CustomerText('note', CUSTOMER_NOTE_MAX, false)
  @ApiPropertyOptional({ description: 'A note for the business (never shown to the customer).', maxLength: CUSTOMER_NOTE_MAX })
  note?: string;
}
