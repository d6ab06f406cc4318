import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import { DomainRefusal } from '@lib/domain';
import { WEBAUTHN_CHALLENGE_MS } from './challenges';
import type { StoredPasskey } from './passkeys.read-model';

/**
 * The relying party a browser's WebAuthn ceremony names (decision 0037): the service's public
 * origin (API_BASE_URL's, else the request's own scheme and host, as the cross-site rule) and
 * its host name as RP ID. The API derives it per request; a passkey is bound to that RP ID.
 */
export interface RelyingParty {
  id: string;
  origin: string;
  name: string;
}

export const passkeyFailed = (why = 'The passkey could not be verified.') => new DomainRefusal('passkey_failed', why);

const load = () => import('@simplewebauthn/server');
let loading: ReturnType<typeof load> | undefined;

/**
 * @simplewebauthn/server, loaded on first use (as @solana/web3.js is): with its ASN.1 and X.509
 * parsers it is ~150 modules and several MB of memory that a process serving no passkey
 * ceremony (the worker, the CLI, an API that only takes payments) never needs.
 */
const simpleWebAuthn = () => (loading ??= load());

/** Passkeys prove the person on their own (sign-in without a password): the authenticator must verify them (PIN, biometrics). */
const USER_VERIFICATION = 'required' as const;
const TIMEOUT = WEBAUTHN_CHALLENGE_MS;
/** The challenge's bytes: the options carry them base64url-encoded, which is the stored challenge again. */
const bytesOf = (challenge: string) => new Uint8Array(Buffer.from(challenge, 'base64url'));

export async function registrationOptions(rp: RelyingParty, account: { id: string; email: string }, existing: StoredPasskey[], challenge: string) {
  const { generateRegistrationOptions } = await simpleWebAuthn();
  return generateRegistrationOptions({
    rpName: rp.name,
    rpID: rp.id,
    userName: account.email,
    userDisplayName: account.email,
    userID: new TextEncoder().encode(account.id),
    challenge: bytesOf(challenge),
    timeout: TIMEOUT,
    attestationType: 'none',
    excludeCredentials: existing.map((p) => ({ id: p.credentialId, transports: p.transports })),
    authenticatorSelection: { residentKey: 'required', requireResidentKey: true, userVerification: USER_VERIFICATION },
  });
}

export async function authenticationOptions(rp: RelyingParty, challenge: string, allow: StoredPasskey[] = []) {
  const { generateAuthenticationOptions } = await simpleWebAuthn();
  return generateAuthenticationOptions({
    rpID: rp.id,
    challenge: bytesOf(challenge),
    timeout: TIMEOUT,
    userVerification: USER_VERIFICATION,
    allowCredentials: allow.map((p) => ({ id: p.credentialId, transports: p.transports })),
  });
}

/** A registration response checked against its challenge and the relying party; anything wrong is 400 passkey_failed. */
export async function verifyRegistration(rp: RelyingParty, response: RegistrationResponseJSON, challenge: string) {
  const { verifyRegistrationResponse } = await simpleWebAuthn();
  try {
    const verified = await verifyRegistrationResponse({ response, expectedChallenge: challenge, expectedOrigin: rp.origin, expectedRPID: rp.id, requireUserVerification: true });
    if (!verified.verified) throw passkeyFailed();
    return verified.registrationInfo;
  } catch (error) {
    if (error instanceof DomainRefusal) throw error;
    throw passkeyFailed();
  }
}

/** An assertion checked against its challenge, the relying party, the passkey's public key and counter; anything wrong is 400 passkey_failed. */
export async function verifyAssertion(rp: RelyingParty, response: AuthenticationResponseJSON, challenge: string, passkey: StoredPasskey) {
  const { verifyAuthenticationResponse } = await simpleWebAuthn();
  try {
    const verified = await verifyAuthenticationResponse({
      response,
      expectedChallenge: challenge,
      expectedOrigin: rp.origin,
      expectedRPID: rp.id,
      requireUserVerification: true,
      credential: { id: passkey.credentialId, publicKey: new Uint8Array(Buffer.from(passkey.publicKey, 'base64url')), counter: passkey.counter, transports: passkey.transports as never },
    });
    if (!verified.verified) throw passkeyFailed();
    return verified.authenticationInfo;
  } catch (error) {
    if (error instanceof DomainRefusal) throw error;
    throw passkeyFailed();
  }
}
