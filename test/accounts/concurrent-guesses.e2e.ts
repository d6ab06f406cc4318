import { generate } from 'otplib';
import { accountsAppForSuite, Browser, PASSWORD, newEmail, signIn, signUp } from './support';

const MINUTE = 60_000;

/**
 * Concurrent guesses against the ladders of spec §8 over HTTP (decision 0033, addendum of
 * 2026-11-28): the failed-password ladder per address, wrong current passwords per session and
 * two-step codes per person. Checking the lock, verifying, then counting let every request in
 * flight be verified before the first failure counted; each attempt now holds one of the slots
 * left before the next lock, so 12 at once are 5 verified and 7 refused — as 12 in a row would
 * be — while concurrent right answers only queue (accounts.e2e.ts: 16 concurrent sign-ins all
 * succeed). On the embedded store and on PostgreSQL (several connections: the race shows there
 * even for the fast TOTP check).
 */
describe.each(['embedded', 'postgres'] as const)('concurrent guesses cannot outrun the ladders, over HTTP on %s', (kind) => {
  const app = accountsAppForSuite({ kind, logs: false });
  const fresh = () => new Browser(app.api);
  const answer = (r: { status: number; body: any }) => [r.status, r.body?.error?.code ?? r.body?.data?.kind ?? null];
  const epoch = () => Math.floor(app.clock.now().getTime() / 1000);
  const sorted = (answers: { status: number; body: any; headers: Headers }[]) => answers.map((r) => r.status).sort();
  const refusedAll = (answers: { status: number; body: any; headers: Headers }[]) =>
    answers.filter((r) => r.status === 429).map((r) => [r.body.error.code, Number(r.headers.get('retry-after')) > 0]);

  it('12 concurrent wrong passwords on one address: 5 verified (400 invalid_credentials), 7 refused 429 too_many_attempts; the right one then waits the minute — known and unknown addresses alike', async () => {
    const { email } = await signUp(app, fresh());
    for (const address of [email, newEmail('nobody')]) {
      const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => signIn(fresh(), address, `wrong password number ${i}`)));
      expect(sorted(answers)).toEqual([...Array(5).fill(400), ...Array(7).fill(429)]);
      for (const r of answers.filter((a) => a.status === 400)) expect(r.body.error.code).toBe('invalid_credentials');
      expect(refusedAll(answers)).toEqual(Array(7).fill(['too_many_attempts', true]));
    }
    const locked = await signIn(fresh(), email);
    expect(answer(locked)).toEqual([429, 'too_many_attempts']);
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(50);
    app.clock.advance(MINUTE);
    expect((await signIn(fresh(), email)).status).toBe(201);
  });

  it('12 concurrent wrong current passwords of one session (step-up, /me/password, /me/email): 5 verified (400), 7 refused 429; the right one then waits the minute', async () => {
    const b = fresh();
    await signUp(app, b);
    const wrong = 'not the password at all';
    const calls = [
      () => b.post('/sessions/current/step-up', { current_password: wrong }),
      () => b.post('/me/password', { current_password: wrong, new_password: 'a brand new passphrase' }),
      () => b.post('/me/email', { email: newEmail(), current_password: wrong }),
    ];
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => calls[i % 3]()));
    expect(sorted(answers)).toEqual([...Array(5).fill(400), ...Array(7).fill(429)]);
    for (const r of answers.filter((a) => a.status === 400)) expect([r.body.error.code, r.body.error.field]).toEqual(['invalid_credentials', 'current_password']);
    expect(refusedAll(answers)).toEqual(Array(7).fill(['too_many_attempts', true]));
    expect(answer(await b.post('/sessions/current/step-up', { current_password: PASSWORD }))).toEqual([429, 'too_many_attempts']);
    app.clock.advance(MINUTE);
    expect(answer(await b.post('/sessions/current/step-up', { current_password: PASSWORD }))).toEqual([200, 'step_up']);
  });

  it('12 concurrent wrong two-step codes of one person: 5 checked (400 invalid_code), 7 refused 429; the right code then waits the 15 minutes', async () => {
    const owner = fresh();
    const { email } = await signUp(app, owner);
    const setup = await owner.post('/me/two-factor/setup');
    const secret = setup.body.data.secret as string;
    expect((await owner.post('/me/two-factor', { code: await generate({ secret, epoch: epoch() }), current_password: PASSWORD })).status).toBe(200);
    app.clock.advance(30_000);
    const asked = await signIn(fresh(), email);
    expect(answer(asked)).toEqual([200, 'two_factor_challenge']);
    const near = await Promise.all([-60, -30, 0, 30, 60].map((d) => generate({ secret, epoch: epoch() + d })));
    const wrongCodes = Array.from({ length: 1_000_000 }, (_, n) => String(n).padStart(6, '0'))
      .filter((c) => !near.includes(c))
      .slice(0, 12);
    const answers = await Promise.all(wrongCodes.map((code) => fresh().post('/sessions/two-factor', { challenge_id: asked.body.data.id, code })));
    expect(sorted(answers)).toEqual([...Array(5).fill(400), ...Array(7).fill(429)]);
    for (const r of answers.filter((a) => a.status === 400)) expect(r.body.error.code).toBe('invalid_code');
    expect(refusedAll(answers)).toEqual(Array(7).fill(['too_many_attempts', true]));
    const right = await fresh().post('/sessions/two-factor', { challenge_id: asked.body.data.id, code: await generate({ secret, epoch: epoch() }) });
    expect(answer(right)).toEqual([429, 'too_many_attempts']);
    expect(Number(right.headers.get('retry-after'))).toBeGreaterThan(14 * 60);
    app.clock.advance(15 * MINUTE);
    const later = fresh();
    const again = await signIn(later, email);
    expect(answer(again)).toEqual([200, 'two_factor_challenge']);
    expect((await later.post('/sessions/two-factor', { challenge_id: again.body.data.id, code: await generate({ secret, epoch: epoch() }) })).status).toBe(201);
  });
});
