import type { SchemaObject } from '@nestjs/swagger';
import { ACCESS_LEVELS, KEY_KINDS, KEY_MODES, RESOURCES } from '@lib/businesses';
import { nullable, object, propertiesOf, ref, str, timestamp } from '../platform/resource-schemas';

/** OpenAPI schemas of the API key routes (decision 0039), as apiKeyView renders a key. */
export const API_KEY_SCHEMA = ref('ApiKey');
export const NEW_API_KEY_SCHEMA = ref('NewApiKey');

const permissions: SchemaObject = {
  ...nullable(object(Object.fromEntries(RESOURCES.map((r) => [r, { type: 'string', enum: [...ACCESS_LEVELS] }])), { additionalProperties: false }, [...RESOURCES])),
  description: 'A restricted key’s grants (write implies read; a resource left out is not accessible); null for a secret key (every permission) and a publishable key (none).',
};

const keyProperties = {
  kind: { type: 'string', enum: ['api_key'] },
  id: { ...str, description: 'key_…' },
  business_id: str,
  type: { type: 'string', enum: [...KEY_KINDS] },
  mode: { type: 'string', enum: [...KEY_MODES] },
  name: nullable(str),
  permissions,
  redacted_key: { ...str, description: 'The key’s prefix and last 4 characters, e.g. `sk_live_…a1b2`: never the secret.' },
  created_at: timestamp,
  revoked_at: { ...nullable(timestamp), description: 'When it was revoked (it then stops working and cannot be changed).' },
  last_used_at: { ...nullable(timestamp), description: 'When a request last authenticated with it, to within a minute; null if never.' },
} satisfies Record<string, SchemaObject>;

export const API_KEY_COMPONENTS: Record<string, SchemaObject> = {
  ApiKey: object(keyProperties),
  NewApiKey: object({ ...propertiesOf('ApiKey', keyProperties), secret: { ...str, description: 'The whole key, shown in this answer only: it is kept as a hash and cannot be shown again.' } }),
};
