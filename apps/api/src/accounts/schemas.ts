import type { SchemaObject } from '@nestjs/swagger';
import { PASSKEY_COMPONENTS } from '../passkeys/schemas';
import { nullable, object, ref, resource, str, timestamp } from '../platform/resource-schemas';

/** OpenAPI schemas of the account and session routes (decision 0034), as libs/accounts' views render them. */
export const ACCOUNT_SCHEMA = ref('Account');
export const SESSION_SCHEMA = ref('Session');
export const SIGNUP_SCHEMA = ref('Signup');

export const ACCOUNT_COMPONENTS: Record<string, SchemaObject> = {
  Account: resource('account', 'A person who signs in to the dashboard (decision 0034).', {
    id: { ...str, description: 'acc_…' },
    email: str,
    businesses: {
      type: 'array',
      description: 'The businesses the person acts for (name one in Service-Business), oldest first.',
      items: object({ id: { ...str, description: 'biz_…' }, name: str, role: { type: 'string', enum: ['owner'] } }),
    },
    created_at: timestamp,
  }),
  Session: resource('session', 'A dashboard session (its token is only ever in its cookie).', {
    id: { ...str, description: 'ses_…' },
    current: { type: 'boolean', description: 'The session of the request that asked.' },
    method: { type: 'string', enum: ['sign_up', 'password', 'passkey'], description: 'How it was started.' },
    user_agent: nullable(str),
    created_at: timestamp,
    last_seen_at: timestamp,
    expires_at: { ...timestamp, description: 'When it ends unless used before (12 hours idle), and at the latest 14 days after it started.' },
  }),
  Signup: resource('signup', 'A sign-up waiting for its e-mailed code.', {
    id: { ...str, description: 'sgn_…' },
    email: str,
    expires_at: { ...timestamp, description: 'Verify before this (a day after the sign-up).' },
    code_expires_at: { ...timestamp, description: 'The code last sent is valid until this (15 minutes).' },
    resend_after: { ...timestamp, description: 'A new code can be asked for from this time (a minute after the last).' },
  }),
  ...PASSKEY_COMPONENTS,
  VerifiedSignup: object({ account: ACCOUNT_SCHEMA, session: SESSION_SCHEMA }, { description: 'The account a verified sign-up opened and its first session.' }),
};
