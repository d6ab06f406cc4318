import type { SchemaObject } from '@nestjs/swagger';
import { int, nullable, ref, resource, str, timestamp } from '../platform/resource-schemas';

/** OpenAPI schemas of two-step sign-in (decision 0036), as libs/accounts' two-factor views render them. */
export const TWO_FACTOR_SCHEMA = ref('TwoFactor');
export const TWO_FACTOR_ENABLED_SCHEMA = ref('TwoFactorEnabled');
export const TWO_FACTOR_SETUP_SCHEMA = ref('TwoFactorSetup');
export const TWO_FACTOR_CHALLENGE_SCHEMA = ref('TwoFactorChallenge');

const twoFactorFields = {
  enabled: { type: 'boolean', description: 'Whether sign-in asks for a code from an authenticator app after the password.' } as SchemaObject,
  enabled_at: nullable(timestamp),
  recovery_codes_remaining: { ...int, description: 'Recovery codes not used yet (0 when off).' },
};

export const TWO_FACTOR_COMPONENTS: Record<string, SchemaObject> = {
  TwoFactor: resource('two_factor', 'The person’s two-step sign-in (TOTP and recovery codes).', twoFactorFields),
  TwoFactorEnabled: resource('two_factor', 'Two-step sign-in just turned on, with its recovery codes.', {
    ...twoFactorFields,
    recovery_codes: { type: 'array', items: str, description: 'Ten recovery codes (XXXX-XXXX-XXXX-XXXX), each good for one sign-in instead of a code. Shown this once: only their hashes are kept.' },
  }),
  TwoFactorSetup: resource('two_factor_setup', 'A two-step setup begun in this session.', {
    secret: { ...str, description: 'The Base32 TOTP secret, to type into an app that cannot scan the QR code.' },
    otpauth_uri: { ...str, description: 'otpauth://totp/… for authenticator apps (SHA-1, 6 digits, 30 seconds).' },
    qr_code: { ...str, description: 'The QR code of otpauth_uri, as an SVG data URI (data:image/svg+xml;base64,…).' },
    expires_at: { ...timestamp, description: 'Turn two-step sign-in on (POST /me/two-factor) in this session before this (10 minutes).' },
  }),
  TwoFactorChallenge: resource('two_factor_challenge', 'The password was right and two-step sign-in is on: a code is needed for the session.', {
    id: { ...str, description: 'tfc_…: answer it at POST /sessions/two-factor.' },
    expires_at: { ...timestamp, description: 'Answer before this (5 minutes); it can be answered once.' },
  }),
};
