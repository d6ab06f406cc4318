import { ApiPropertyOptional } from '@nestjs/swagger';
import { CUSTOMER_EMAIL_MAX, CUSTOMER_NAME_MAX, CUSTOMER_NOTE_MAX, CustomerEmail, CustomerText } from '../customer-input';

/** PATCH /customers/{id} (decision 0029): send only what changes. */
export class UpdateCustomerRequest {
  @CustomerEmail(false)
  @ApiPropertyOptional({ description: 'A new e-mail address; another customer’s is 409 customer_exists.', maxLength: CUSTOMER_EMAIL_MAX })
  email?: string;

  @CustomerText('name', CUSTOMER_NAME_MAX, true)
  @ApiPropertyOptional({ description: 'The customer’s name; null or blank removes it.', nullable: true, maxLength: CUSTOMER_NAME_MAX })
  name?: string | null;

  @CustomerText('note', CUSTOMER_NOTE_MAX, false)
  @ApiPropertyOptional({ description: 'A note for the business; "" removes it.', maxLength: CUSTOMER_NOTE_MAX })
  note?: string;
}
