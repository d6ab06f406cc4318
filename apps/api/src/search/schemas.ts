import type { SchemaObject } from '@nestjs/swagger';
import { CUSTOMER_COMPONENTS, CUSTOMER_SCHEMA } from '../customers/schemas';
import { PAYMENT_COMPONENTS } from '../payments/schemas';
import { LINK_SCHEMA } from '../links/schemas';
import { nullable, ref, sameAs } from '../platform/resource-schemas';

/** OpenAPI schemas of GET /search (spec §4; decision 0031): each result is its kind's object. */
export const SEARCH_RESULT_SCHEMA = ref('SearchResult');

const payment = sameAs('Payment', PAYMENT_COMPONENTS.Payment);

export const SEARCH_COMPONENTS: Record<string, SchemaObject> = {
  SearchPayment: {
    ...payment,
    description: 'A payment as GET /payments/{id} returns it; with include=customer, also its customer.',
    properties: { ...payment.properties, customer: { ...nullable(sameAs('Customer', CUSTOMER_COMPONENTS.Customer)), description: 'include=customer only: the customer as GET /customers/{id} returns it; null when the payment names none.' } },
  },
  SearchResult: {
    description: 'A payment, customer or link as its own endpoint returns it; `kind` says which.',
    oneOf: [ref('SearchPayment'), CUSTOMER_SCHEMA, LINK_SCHEMA],
  },
};
