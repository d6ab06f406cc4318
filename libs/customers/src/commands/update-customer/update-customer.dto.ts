import { CUSTOMER_NAME_MAX, CUSTOMER_NOTE_MAX, CustomerEmail, CustomerText } from '../customer-input';
import { ChangeBody } from '@lib/http';

/** PATCH /customers/{id} (decision 0029): send only what changes. */
@ChangeBody()
export class UpdateCustomerRequest {
  @CustomerEmail(false, 'A new e-mail address; another customer’s is 409 customer_exists.')
  email?: string;

  @CustomerText('name', CUSTOMER_NAME_MAX, true, 'single-line', 'The customer’s name; null or blank removes it.')
  name?: string | null;

  @CustomerText('note', CUSTOMER_NOTE_MAX, false, 'multi-line', 'A note for the business; "" removes it.')
  note?: string;
}
