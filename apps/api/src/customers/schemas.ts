import type { SchemaObject } from '@nestjs/swagger';
import { int, nullable, object, ref, str, timestamp } from '../platform/resource-schemas';

/** OpenAPI schemas of the customer routes (spec §2 Customer; decision 0029), as customerView renders them. */
export const CUSTOMER_SCHEMA = ref('Customer');

const money = (what: string): SchemaObject =>
  object({ amount: { ...int, description: `${what}, integer minor units of currency.` }, currency: { ...nullable(str), description: 'The stats currency: that of the latest succeeded payment, else of the latest payment; null without payments.' } });

export const CUSTOMER_COMPONENTS: Record<string, SchemaObject> = {
  Customer: object(
    {
      kind: { type: 'string', enum: ['customer'] },
      id: { ...str, description: 'cst_…' },
      name: { ...nullable(str), description: 'Null when never given (a customer known only from a payment’s e-mail).' },
      email: str,
      blocked: { type: 'boolean', description: 'A blocked customer’s payments and checkouts are refused (403 customer_blocked).' },
      note: { ...str, description: '"" when none.' },
      stats: {
        ...object({
          payments_count: { ...int, description: 'Payments naming the customer.' },
          incomplete_count: { ...int, description: 'Those not succeeded.' },
          volume: money('The sum of the prices of its succeeded payments in the stats currency'),
          average: money('That sum divided by their number, rounded down (0 without any)'),
          last_payment_at: { ...nullable(timestamp), description: 'When its latest payment was created.' },
          preferred_rail: { ...nullable({ type: 'string', enum: ['crypto', 'card'] }), description: 'The rail most of its succeeded payments used; null when none succeeded.' },
        }),
        description: 'In API responses and in the data of customer.* events alike, as they stand at that moment (decision 0029).',
      },
      created_at: timestamp,
      updated_at: timestamp,
    },
    { description: 'A customer of the business (spec §2): one per e-mail address.' },
  ),
};
