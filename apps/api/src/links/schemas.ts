import type { SchemaObject } from '@nestjs/swagger';
import { deletedResource, int, nullable, object, ref, resource, str, timestamp } from '../platform/resource-schemas';

/** OpenAPI schemas of the link routes (spec §2 "Fields of the link object: not shown"; decision 0030), as linkView renders them. */
export const LINK_SCHEMA = ref('Link');
export const DELETED_LINK_SCHEMA = ref('DeletedLink');

export const LINK_COMPONENTS: Record<string, SchemaObject> = {
  Link: resource('link', 'A payment link (decision 0030): each checkout on its code makes a payment with `link_id` set.', {
    id: { ...str, description: 'lnk_…' },
    code: { ...str, description: 'The last segment of `url`; POST /checkouts takes it as `link_code`.' },
    url: { ...str, description: 'The link’s hosted checkout page: `{CHECKOUT_BASE_URL}/{code}`.' },
    name: str,
    description: nullable(str),
    amount: { ...int, description: 'The fixed price, integer minor units of currency.' },
    currency: str,
    rails: { ...nullable({ type: 'array', items: { type: 'string', enum: ['crypto', 'card'] } }), description: 'null: the business’s checkout settings.' },
    assets: {
      ...nullable({ type: 'array', items: object({ asset: str, network: str }) }),
      description: 'null: the business’s checkout settings.',
    },
    success_url: nullable(str),
    ask_email: { type: 'boolean' },
    metadata: { type: 'object', additionalProperties: { type: 'string' }, description: 'Copied onto each payment the link makes.' },
    status: { type: 'string', enum: ['active', 'archived', 'disabled'], description: '`archived` by the business (restorable), `disabled` by the service (not restorable).' },
    payments_count: { ...int, description: 'Payments the link made.' },
    created_at: timestamp,
    updated_at: timestamp,
  }),
  DeletedLink: deletedResource('link', 'A deleted link.'),
};
