import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import { IsNotEmpty, IsString, MaxLength, ValidateBy, ValidateIf } from 'class-validator';
import { PASSWORD_MAX, Password } from '../commands/account-input';
import { PlainText } from '@lib/http';

/** Limits of the passkey inputs (decision 0037). */
export const PASSKEY_NAME_MAX = 100;
const B64URL_MAX = 16 * 1024;
const B64URL = /^[A-Za-z0-9_-]*={0,2}$/;

const isB64 = (v: unknown, required = true): boolean => (v === undefined && !required) || (typeof v === 'string' && v.length > 0 && v.length <= B64URL_MAX && B64URL.test(v));
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The shape a browser's PublicKeyCredential.toJSON() has (its contents are WebAuthn's to verify: 400 passkey_failed). */
export function isCredentialJson(value: unknown, kind: 'registration' | 'authentication'): boolean {
  if (!isRecord(value) || !isB64(value.id) || !isB64(value.rawId) || value.type !== 'public-key' || !isRecord(value.response)) return false;
  if (value.clientExtensionResults !== undefined && !isRecord(value.clientExtensionResults)) return false;
  const r = value.response;
  if (!isB64(r.clientDataJSON)) return false;
  if (kind === 'registration') {
    if (!isB64(r.attestationObject)) return false;
    return r.transports === undefined || (Array.isArray(r.transports) && r.transports.length <= 10 && r.transports.every((t) => typeof t === 'string' && t.length <= 32));
  }
  return isB64(r.authenticatorData) && isB64(r.signature) && (r.userHandle === undefined || r.userHandle === null || isB64(r.userHandle));
}

/** `credential`: the browser's PublicKeyCredential as JSON; a wrong shape is 400 invalid_request on `credential`. */
export function Credential(kind: 'registration' | 'authentication', required = true): PropertyDecorator {
  return applyDecorators(
    ValidateBy({ name: kind === 'registration' ? 'isWebauthnRegistration' : 'isWebauthnAuthentication', validator: { validate: (v: unknown) => isCredentialJson(v, kind), defaultMessage: () => `credential must be the browser's ${kind} PublicKeyCredential as JSON` } }),
    ...(required ? [] : [ValidateIf((_o: object, v: unknown) => v !== undefined)]),
    Transform(({ value }: { value: unknown }) => (isRecord(value) ? { ...value, clientExtensionResults: value.clientExtensionResults ?? {} } : value)),
  );
}

const CREDENTIAL_DOC = { type: 'object', additionalProperties: true } as const;

/** POST /me/passkeys. */
export class AddPasskeyRequest {
  @Credential('registration')
  @ApiProperty({ ...CREDENTIAL_DOC, description: 'What navigator.credentials.create() answered for the options of POST /me/passkeys/registration/options, as JSON (PublicKeyCredential.toJSON()).' })
  credential!: RegistrationResponseJSON;

  @PlainText('single-line')
  @MaxLength(PASSKEY_NAME_MAX, { message: `name is at most ${PASSKEY_NAME_MAX} characters` })
  @IsNotEmpty({ message: 'name must not be empty' })
  @IsString({ message: 'name must be a string' })
  @ValidateIf((_o: object, v: unknown) => v !== undefined)
  @Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value))
  @ApiPropertyOptional({ description: 'What the person calls it (default "Passkey").', maxLength: PASSKEY_NAME_MAX })
  name?: string;
}

/** POST /passkeys/authentication/verify. */
export class PasskeySignInRequest {
  @Credential('authentication')
  @ApiProperty({ ...CREDENTIAL_DOC, description: 'What navigator.credentials.get() answered for the options of POST /passkeys/authentication/options, as JSON.' })
  credential!: AuthenticationResponseJSON;
}

/** POST /sessions/current/step-up: the current password or a passkey assertion, one of them. */
export class StepUpRequest {
  @Password('current_password', false)
  @ApiPropertyOptional({ description: 'The current password (400 invalid_credentials when wrong; counted on the session’s own ladder).', maxLength: PASSWORD_MAX })
  current_password?: string;

  @Credential('authentication', false)
  @ApiPropertyOptional({ ...CREDENTIAL_DOC, description: 'What navigator.credentials.get() answered for the options of POST /sessions/current/step-up/options, as JSON.' })
  credential?: AuthenticationResponseJSON;
}
