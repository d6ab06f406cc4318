import { KeyObject, createHash, generateKeyPairSync, randomBytes, sign } from 'node:crypto';

/**
 * A software passkey authenticator for the tests (decision 0037): ES256 key pairs from
 * node:crypto, answering WebAuthn options exactly as a browser hands the authenticator's output
 * to a page — attestation `none` registrations (CBOR attestation object with authenticator data
 * and a COSE key) and assertions (authenticator data, clientDataJSON, a DER ECDSA signature over
 * authenticatorData ‖ SHA-256(clientDataJSON)), every binary field base64url.
 */

type Cbor = number | string | Uint8Array | Map<Cbor, Cbor> | { [key: string]: Cbor };

function head(major: number, n: number): Buffer {
  if (n < 24) return Buffer.from([(major << 5) | n]);
  if (n < 256) return Buffer.from([(major << 5) | 24, n]);
  if (n < 65536) return Buffer.from([(major << 5) | 25, n >> 8, n & 255]);
  const b = Buffer.alloc(5);
  b[0] = (major << 5) | 26;
  b.writeUInt32BE(n, 1);
  return b;
}

/** A minimal CBOR encoder: integers, text and byte strings, maps. */
export function cbor(value: Cbor): Buffer {
  if (typeof value === 'number') return value >= 0 ? head(0, value) : head(1, -1 - value);
  if (typeof value === 'string') {
    const bytes = Buffer.from(value, 'utf8');
    return Buffer.concat([head(3, bytes.length), bytes]);
  }
  if (value instanceof Uint8Array) return Buffer.concat([head(2, value.length), Buffer.from(value)]);
  const entries: [Cbor, Cbor][] = value instanceof Map ? [...value.entries()] : Object.entries(value);
  return Buffer.concat([head(5, entries.length), ...entries.flatMap(([k, v]) => [cbor(k), cbor(v)])]);
}

const b64u = (bytes: Uint8Array | string) => Buffer.from(bytes).toString('base64url');
const sha256 = (bytes: Uint8Array | string) => createHash('sha256').update(bytes).digest();
const u32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n >>> 0);
  return b;
};

const UP = 0x01;
const UV = 0x04;
const AT = 0x40;

export interface SoftCredential {
  id: Buffer;
  rpId: string;
  userHandle: string;
  privateKey: KeyObject;
  publicKey: KeyObject;
  counter: number;
}

export interface CreationOptions {
  challenge: string;
  rp: { id?: string; name: string };
  user: { id: string; name: string };
}
export interface RequestOptions {
  challenge: string;
  rpId?: string;
  allowCredentials?: { id: string }[];
}

export class SoftwareAuthenticator {
  readonly credentials: SoftCredential[] = [];
  /** Set false to answer without user verification (the UV flag). */
  verifiesUser = true;

  constructor(readonly origin: string) {}

  /** navigator.credentials.create(): a new discoverable credential for the options' RP and user. */
  create(options: CreationOptions, reuse?: SoftCredential) {
    const rpId = options.rp.id ?? new URL(this.origin).hostname;
    const credential = reuse ?? this.newCredential(rpId, options.user.id);
    const jwk = credential.publicKey.export({ format: 'jwk' });
    const coseKey = cbor(
      new Map<Cbor, Cbor>([
        [1, 2],
        [3, -7],
        [-1, 1],
        [-2, Buffer.from(jwk.x!, 'base64url')],
        [-3, Buffer.from(jwk.y!, 'base64url')],
      ]),
    );
    const idLength = Buffer.from([credential.id.length >> 8, credential.id.length & 255]);
    const authData = Buffer.concat([sha256(rpId), Buffer.from([UP | (this.verifiesUser ? UV : 0) | AT]), u32(credential.counter), Buffer.alloc(16), idLength, credential.id, coseKey]);
    const clientData = JSON.stringify({ type: 'webauthn.create', challenge: options.challenge, origin: this.origin, crossOrigin: false });
    const attestationObject = cbor({ fmt: 'none', attStmt: new Map(), authData });
    return {
      id: b64u(credential.id),
      rawId: b64u(credential.id),
      type: 'public-key',
      authenticatorAttachment: 'platform',
      clientExtensionResults: {},
      response: { clientDataJSON: b64u(clientData), attestationObject: b64u(attestationObject), transports: ['internal', 'hybrid'] },
    };
  }

  /** navigator.credentials.get(): an assertion by `credential` (default: the first for the options' RP, among those allowed). */
  get(options: RequestOptions, credential?: SoftCredential, tweak: { origin?: string; type?: string; counter?: number } = {}) {
    const rpId = options.rpId ?? new URL(this.origin).hostname;
    const allowed = options.allowCredentials?.map((c) => c.id) ?? [];
    const chosen = credential ?? this.credentials.find((c) => c.rpId === rpId && (allowed.length === 0 || allowed.includes(b64u(c.id))));
    if (!chosen) throw new Error('no credential for these options');
    chosen.counter = tweak.counter ?? chosen.counter + 1;
    const authData = Buffer.concat([sha256(rpId), Buffer.from([UP | (this.verifiesUser ? UV : 0)]), u32(chosen.counter)]);
    const clientData = Buffer.from(JSON.stringify({ type: tweak.type ?? 'webauthn.get', challenge: options.challenge, origin: tweak.origin ?? this.origin, crossOrigin: false }), 'utf8');
    const signature = sign('sha256', Buffer.concat([authData, sha256(clientData)]), chosen.privateKey);
    return {
      id: b64u(chosen.id),
      rawId: b64u(chosen.id),
      type: 'public-key',
      authenticatorAttachment: 'platform',
      clientExtensionResults: {},
      response: { clientDataJSON: b64u(clientData), authenticatorData: b64u(authData), signature: b64u(signature), userHandle: chosen.userHandle },
    };
  }

  private newCredential(rpId: string, userHandle: string): SoftCredential {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const credential = { id: randomBytes(32), rpId, userHandle, privateKey, publicKey, counter: 0 };
    this.credentials.push(credential);
    return credential;
  }
}
