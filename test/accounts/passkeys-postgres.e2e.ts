import { accountsAppForSuite, Browser, challenge, PASSWORD, signUp } from './support';
import { SoftwareAuthenticator } from './software-authenticator';

/**
 * Passkeys and step-up on PostgreSQL (decision 0037): the challenges table of migration 014, the
 * account_passkeys projection and the counter, on the store a multi-process deployment uses.
 */
describe('passkeys over HTTP on PostgreSQL', () => {
  const app = accountsAppForSuite({ kind: 'postgres', logs: false });

  it('steps up, adds a passkey, signs in with it (the counter recorded), steps up with it, removes it', async () => {
    const origin = new URL(app.api.base).origin;
    const authenticator = new SoftwareAuthenticator(origin);
    const first = new Browser(app.api);
    const { account } = await signUp(app, first);
    expect((await first.post('/sessions/current/step-up', { current_password: PASSWORD })).status).toBe(200);
    const options = await first.post('/me/passkeys/registration/options');
    const added = await first.post('/me/passkeys', { credential: authenticator.create(options.body.data), name: 'Phone' });
    expect([added.status, added.body.data.name]).toEqual([201, 'Phone']);

    const second = new Browser(app.api);
    const asked = await second.post('/passkeys/authentication/options', undefined, challenge('sign_in'));
    const credential = authenticator.get(asked.body.data);
    const signedIn = await second.post('/passkeys/authentication/verify', { credential });
    expect([signedIn.status, signedIn.body.data.method]).toEqual([201, 'passkey']);
    expect((await second.get('/me')).body.data.id).toBe(account.id);
    const replayed = await second.post('/passkeys/authentication/verify', { credential });
    expect([replayed.status, replayed.body.error.code]).toEqual([400, 'passkey_failed']);

    app.clock.advance(16 * 60 * 1000);
    expect((await second.delete(`/me/passkeys/${added.body.data.id}`)).body.error.code).toBe('step_up_required');
    const stepOptions = await second.post('/sessions/current/step-up/options');
    const stepped = await second.post('/sessions/current/step-up', { credential: authenticator.get(stepOptions.body.data) });
    expect([stepped.status, stepped.body.data.method]).toEqual([200, 'passkey']);
    const removed = await second.delete(`/me/passkeys/${added.body.data.id}`);
    expect(removed.status).toBe(200);
    expect((await second.get('/me/passkeys')).body.data).toEqual([]);
  });
});
