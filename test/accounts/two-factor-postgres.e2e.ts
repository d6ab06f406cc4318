import { generate } from 'otplib';
import { DATABASE } from '@lib/core';
import type { Sql } from '@lib/database';
import { KeyEncryptionKey } from '@lib/wallets';
import { accountsAppForSuite, Browser, PASSWORD, signIn, signUp } from './support';

/**
 * Two-step sign-in on PostgreSQL (decision 0036): migration 013's vault, the secret sealed under
 * the configured WALLET_KEK (the wallets' key), sign-in with a code and a recovery code.
 */
describe('two-step sign-in over HTTP on PostgreSQL', () => {
  const app = accountsAppForSuite({ kind: 'postgres', logs: false });

  it('turns on, signs in with a code and a recovery code, keeps the secret sealed under WALLET_KEK, turns off', async () => {
    const owner = new Browser(app.api);
    const { email, account } = await signUp(app, owner);
    const setup = await owner.post('/me/two-factor/setup');
    const secret = setup.body.data.secret as string;
    const code = (offsetSec = 0) => generate({ secret, epoch: Math.floor(app.clock.now().getTime() / 1000) + offsetSec });
    const enabled = await owner.post('/me/two-factor', { code: await code(), current_password: PASSWORD });
    expect(enabled.status).toBe(200);

    const kek = KeyEncryptionKey.parse(process.env.WALLET_KEK!);
    const db = app.api.app.get<Sql>(DATABASE);
    const { rows } = await db.query<{ setup_id: string; kek_id: string; nonce: Uint8Array; ciphertext: Uint8Array; tag: Uint8Array }>(
      `SELECT setup_id, kek_id, nonce, ciphertext, tag FROM account_totp_secrets WHERE account_id = $1`,
      [account.id],
    );
    expect(rows.map((r) => r.kek_id)).toEqual([kek.id]);
    const sealed = { nonce: Buffer.from(rows[0].nonce), ciphertext: Buffer.from(rows[0].ciphertext), tag: Buffer.from(rows[0].tag) };
    expect(kek.open(sealed, `account_totp:${account.id}:${rows[0].setup_id}`).toString('utf8')).toBe(secret);
    expect(() => kek.open(sealed, `account_totp:acc_other:${rows[0].setup_id}`)).toThrow();

    const b = new Browser(app.api);
    const challenge = await signIn(b, email);
    expect([challenge.status, challenge.body.data.kind]).toEqual([200, 'two_factor_challenge']);
    app.clock.advance(30_000);
    const session = await b.post('/sessions/two-factor', { challenge_id: challenge.body.data.id, code: await code() });
    expect([session.status, session.body.data.kind]).toEqual([201, 'session']);
    expect((await b.get('/me')).status).toBe(200);

    const c = new Browser(app.api);
    const viaRecovery = await c.post('/sessions/two-factor', { challenge_id: (await signIn(c, email)).body.data.id, recovery_code: enabled.body.data.recovery_codes[0] });
    expect(viaRecovery.status).toBe(201);

    app.clock.advance(30_000);
    const off = await owner.post('/me/two-factor/disable', { current_password: PASSWORD, code: await code() });
    expect([off.status, off.body.data.enabled]).toEqual([200, false]);
    expect((await db.query(`SELECT 1 FROM account_totp_secrets WHERE account_id = $1`, [account.id])).rows).toHaveLength(0);
    expect((await signIn(new Browser(app.api), email)).status).toBe(201);
  });
});
