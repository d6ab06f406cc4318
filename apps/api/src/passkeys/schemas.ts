import type { SchemaObject } from '@nestjs/swagger';
import { nullable, ref, resource, str, timestamp } from '../platform/resource-schemas';

/** OpenAPI schemas of the passkey and step-up routes (decision 0037). */
export const PASSKEY_SCHEMA = ref('Passkey');
export const STEP_UP_SCHEMA = ref('StepUp');
export const CREATION_OPTIONS_SCHEMA = ref('PasskeyCreationOptions');
export const REQUEST_OPTIONS_SCHEMA = ref('PasskeyRequestOptions');

export const PASSKEY_COMPONENTS: Record<string, SchemaObject> = {
  Passkey: resource('passkey', 'A passkey the person signs in or steps up with (its public key is not shown).', {
    id: { ...str, description: 'pky_…' },
    name: str,
    transports: { type: 'array', items: str, description: 'How the browser reaches the authenticator (internal, hybrid, usb, nfc, ble).' },
    device_type: { type: 'string', enum: ['singleDevice', 'multiDevice'], description: 'multiDevice: synced between the person’s devices.' },
    backed_up: { type: 'boolean' },
    created_at: timestamp,
    last_used_at: nullable(timestamp),
  }),
  StepUp: resource('step_up', 'A session that proved its person again (spec §5.6).', {
    method: { type: 'string', enum: ['password', 'passkey'] },
    expires_at: { ...timestamp, description: 'Sensitive changes are open to this session until then (15 minutes).' },
  }),
  PasskeyCreationOptions: {
    type: 'object',
    additionalProperties: true,
    description: 'WebAuthn PublicKeyCredentialCreationOptionsJSON: give it to PublicKeyCredential.parseCreationOptionsFromJSON() and navigator.credentials.create(). The challenge is valid five minutes, once, in this session.',
  },
  PasskeyRequestOptions: {
    type: 'object',
    additionalProperties: true,
    description: 'WebAuthn PublicKeyCredentialRequestOptionsJSON: give it to PublicKeyCredential.parseRequestOptionsFromJSON() and navigator.credentials.get(). The challenge is valid five minutes, once, in this browser.',
  },
};
