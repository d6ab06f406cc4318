import { ConfirmAlertEmailDto, CreateApiKeyDto, CreateBusinessDto, DomainError, validInput } from '@lib/businesses';

/** The refusal an input gets: code, field and message, or the valid input. */
async function check<T extends object>(type: new () => T, value: unknown): Promise<T | { code: string; field: string | null; message: string }> {
  try {
    return { ...(await validInput(type, value)) };
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    return { code: error.code, field: error.field, message: error.message };
  }
}

describe('create-business input (CreateBusinessDto)', () => {
  it('trims texts; an empty website or support e-mail is none', async () => {
    expect(await check(CreateBusinessDto, { name: '  Acme  ', simulated: true, website: ' https://acme.test ', support_email: '' })).toEqual({
      name: 'Acme',
      simulated: true,
      website: 'https://acme.test',
      support_email: null,
    });
    expect(await check(CreateBusinessDto, { name: 'Acme', simulated: false })).toEqual({ name: 'Acme', simulated: false });
  });

  it('refuses a missing or blank name, naming the field', async () => {
    expect(await check(CreateBusinessDto, { name: '   ', simulated: false })).toEqual({ code: 'invalid_request', field: 'name', message: 'name is required.' });
    expect(await check(CreateBusinessDto, { simulated: false })).toEqual({ code: 'invalid_request', field: 'name', message: 'name is required.' });
    expect(await check(CreateBusinessDto, { name: 7, simulated: false })).toMatchObject({ code: 'invalid_request', field: 'name' });
  });

  it('refuses a name over 200 characters (after trimming) and a non-boolean simulated flag', async () => {
    expect(await check(CreateBusinessDto, { name: 'x'.repeat(201), simulated: false })).toEqual({
      code: 'invalid_request',
      field: 'name',
      message: 'name is at most 200 characters.',
    });
    expect(await check(CreateBusinessDto, { name: ` ${'x'.repeat(200)} `, simulated: false })).toMatchObject({ name: 'x'.repeat(200) });
    expect(await check(CreateBusinessDto, { name: 'Acme', simulated: 'yes' })).toEqual({ code: 'invalid_request', field: 'simulated', message: 'simulated must be true or false.' });
  });

  it('refuses texts that are not strings, too long ones, and unknown fields', async () => {
    expect(await check(CreateBusinessDto, { name: 'Acme', simulated: false, website: 5 })).toMatchObject({ code: 'invalid_request', field: 'website' });
    expect(await check(CreateBusinessDto, { name: 'Acme', simulated: false, support_email: `${'a'.repeat(250)}@x.io` })).toMatchObject({
      code: 'invalid_request',
      field: 'support_email',
      message: 'support_email is at most 254 characters.',
    });
    expect(await check(CreateBusinessDto, { name: 'Acme', simulated: false, owner: 'me' })).toMatchObject({ code: 'invalid_request', field: 'owner' });
  });
});

describe('create-api-key input (CreateApiKeyDto)', () => {
  it('takes a kind, a mode, a trimmed name and permissions in either form', async () => {
    expect(await check(CreateApiKeyDto, { type: 'secret', mode: 'live', name: ' Backend ' })).toEqual({ type: 'secret', mode: 'live', name: 'Backend' });
    expect(await check(CreateApiKeyDto, { type: 'restricted', mode: 'test', permissions: 'payments:write, webhooks:read' })).toMatchObject({
      permissions: 'payments:write, webhooks:read',
    });
    expect(await check(CreateApiKeyDto, { type: 'restricted', mode: 'test', permissions: { events: 'read' } })).toMatchObject({ permissions: { events: 'read' } });
    expect(await check(CreateApiKeyDto, { type: 'publishable', mode: 'live', name: '  ' })).toEqual({ type: 'publishable', mode: 'live', name: null });
  });

  it('refuses unknown kinds and modes, naming type and mode', async () => {
    expect(await check(CreateApiKeyDto, { type: 'master', mode: 'live' })).toEqual({
      code: 'invalid_request',
      field: 'type',
      message: "A key's type is one of secret, publishable, restricted.",
    });
    expect(await check(CreateApiKeyDto, { type: 'secret', mode: 'staging' })).toEqual({ code: 'invalid_request', field: 'mode', message: "A key's mode is live or test." });
  });

  it('refuses malformed permissions with the reason, field permissions', async () => {
    expect(await check(CreateApiKeyDto, { type: 'restricted', mode: 'live', permissions: 'refunds:write' })).toMatchObject({
      code: 'invalid_request',
      field: 'permissions',
      message: expect.stringMatching(/^Unknown resource "refunds" in permission "refunds:write"; .*\.$/),
    });
    expect(await check(CreateApiKeyDto, { type: 'restricted', mode: 'live', permissions: { payments: 'admin' } })).toMatchObject({
      field: 'permissions',
      message: expect.stringMatching(/Unknown access "admin"/),
    });
    expect(await check(CreateApiKeyDto, { type: 'restricted', mode: 'live', permissions: 'payments' })).toMatchObject({
      field: 'permissions',
      message: expect.stringMatching(/is not of the form resource:access/),
    });
    expect(await check(CreateApiKeyDto, { type: 'restricted', mode: 'live', permissions: ['payments:read'] })).toMatchObject({ field: 'permissions' });
    expect(await check(CreateApiKeyDto, { type: 'secret', mode: 'live', name: 'x'.repeat(101) })).toMatchObject({ field: 'name', message: 'name is at most 100 characters.' });
  });
});

describe('confirm-alert-email input (ConfirmAlertEmailDto)', () => {
  // audit "rest" finding 7: a code sent as a number was told "code is required."
  it('says a code of another type must be a string, and a missing one is required', async () => {
    expect(await check(ConfirmAlertEmailDto, { code: 123456 })).toEqual({ code: 'invalid_request', field: 'code', message: 'code must be a string.' });
    expect(await check(ConfirmAlertEmailDto, { code: null })).toEqual({ code: 'invalid_request', field: 'code', message: 'code must be a string.' });
    expect(await check(ConfirmAlertEmailDto, {})).toEqual({ code: 'invalid_request', field: 'code', message: 'code is required.' });
    expect(await check(ConfirmAlertEmailDto, { code: '123 456' })).toEqual({ code: '123 456' });
  });
});
