import { CUSTOMER_NAME_MAX, CUSTOMER_NOTE_MAX, CustomerEmail, CustomerText } from '../customer-input';

/** POST /customers (decision 0029): the shape of the input. */
export class CreateCustomerRequest {
  @CustomerEmail(true, 'The customer’s e-mail address (compared case-insensitively): one customer per address and business.')
  email!: string;

  @CustomerText('name', CUSTOMER_NAME_MAX, true, 'single-line', 'The customer’s name; null or left out: none.')
  name?: string | null;

  @CustomerText('note', CUSTOMER_NOTE_MAX, false, 'multi-line', 'A note for the business (never shown to the customer).')
  note?: string;
}
