import { validateInput } from '@lib/http';
import { OpenBusinessRequest, StartSignupRequest } from '../../libs/accounts/src';
import { UpdateBusinessDto } from '../../libs/businesses/src';

/** The refusal a body gets for its referral_code (code, field, message), or the code as the body keeps it. */
async function referralCodeOf(type: new () => object, body: Record<string, unknown>): Promise<unknown> {
  try {
    return ((await validateInput(type, body)) as { referral_code?: unknown }).referral_code;
  } catch (error) {
    const e = error as { code?: string; field?: string | null; message: string };
    if (e.code === undefined) throw error;
    return { code: e.code, field: e.field ?? null, message: e.message };
  }
}

/** Every body that carries a referral code, with the other members it needs to be valid. */
const BODIES: [string, new () => object, Record<string, unknown>][] = [
  ['PATCH /businesses/{id}', UpdateBusinessDto, { name: 'Ann’s' }],
  ['POST /accounts (sign-up)', StartSignupRequest, { email: 'ann@example.com', password: 'Correct-Horse-Battery-9', business_name: 'Ann’s' }],
  ['POST /businesses (a signed-in person)', OpenBusinessRequest, { name: 'Ann’s second' }],
];

describe('referral_code in a request body: one rule set, the same answer on every route (decision 0035)', () => {
  it.each(BODIES)('%s', async (_route, type, rest) => {
    const refused = (message: string) => ({ code: 'invalid_request', field: 'referral_code', message });
    expect(await referralCodeOf(type, { ...rest, referral_code: ' AB-cd ' })).toBe('ab-cd');
    expect(await referralCodeOf(type, { ...rest, referral_code: 'ab' })).toEqual(refused('referral_code is at least 4 characters.'));
    expect(await referralCodeOf(type, { ...rest, referral_code: 'x'.repeat(33) })).toEqual(refused('referral_code is at most 32 characters.'));
    expect(await referralCodeOf(type, { ...rest, referral_code: 'a--b' })).toEqual(refused('referral_code is 4–32 letters, digits and single inner hyphens.'));
    expect(await referralCodeOf(type, { ...rest, referral_code: 5 })).toEqual(refused('referral_code must be a string.'));
    expect(await referralCodeOf(type, { ...rest, referral_code: null })).toEqual(refused('referral_code must be a string.'));
    expect(await referralCodeOf(type, rest)).toBeUndefined();
  });
});
