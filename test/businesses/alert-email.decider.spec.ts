import {
  BusinessCommand,
  BusinessEvent,
  DecideContext,
  DomainError,
  decide,
  foldBusiness,
  hashAlertCode,
  normalizeAlertCode,
  referralCodeDecider,
  referralShare,
  normalizeReferralCode,
} from '@lib/businesses';
import { thrownBy } from '../support/thrown';

/**
 * The alert e-mail's rules (spec §4 "POST /businesses/{id}/alert-email/confirm", §8; decision
 * 0035), settings and referral codes, as given events / when command / then events or refusal.
 */
const T0 = Date.parse('2026-03-01T10:00:00.000Z');
const at = (ms: number): DecideContext => ({ now: new Date(T0 + ms), ids: { business: () => 'biz_1', key: () => 'key_1' } });
const MIN = 60_000;
const SALT = '0123456789abcdef0123456789abcdef';
const SALT2 = 'fedcba9876543210fedcba9876543210';

function given(events: BusinessEvent[]) {
  const state = foldBusiness(events);
  return {
    when(command: BusinessCommand, ctx: DecideContext = at(0)) {
      const run = () => decide(command, state, ctx);
      return {
        then: (expected: BusinessEvent[]) => expect(run()).toEqual(expected),
        thenRefused(code: DomainError['code'], field: string | null = null) {
          const caught = thrownBy(DomainError, run);
          expect(caught).toMatchObject({ code, field });
          return caught;
        },
      };
    },
  };
}

const created = (over: Partial<Extract<BusinessEvent, { type: 'BusinessCreated' }>['data']> = {}): BusinessEvent => ({
  type: 'BusinessCreated',
  data: { business_id: 'biz_1', name: 'Acme', simulated: false, website: null, support_email: null, referral_code: 'acme-1', referred_by: null, ...over },
});
const codeSent = (email: string, code: string, sentAtMs: number, pendingSinceMs = sentAtMs, salt = SALT): BusinessEvent => ({
  type: 'AlertEmailCodeSent',
  data: { business_id: 'biz_1', email, code_salt: salt, code_hash: hashAlertCode(code, salt), sent_at: new Date(T0 + sentAtMs).toISOString(), pending_since: new Date(T0 + pendingSinceMs).toISOString() },
});
const rejected: BusinessEvent = { type: 'AlertEmailCodeRejected', data: { business_id: 'biz_1' } };
const confirmed = (email: string): BusinessEvent => ({ type: 'AlertEmailConfirmed', data: { business_id: 'biz_1', email } });
const confirm = (code: string): BusinessCommand => ({ type: 'ConfirmAlertEmail', businessId: 'biz_1', code });
const send = (email: string, salt = SALT2, code = '654321'): BusinessCommand => ({ type: 'SendAlertEmailCode', businessId: 'biz_1', email, codeSalt: salt, codeHash: hashAlertCode(code, salt) });

describe('alert e-mail confirmation (decider)', () => {
  it('the right code, spaces ignored, confirms the pending address', () => {
    given([created(), codeSent('ops@acme.example', '123456', 0)]).when(confirm(' 123 456 '), at(5 * MIN)).then([confirmed('ops@acme.example')]);
  });

  it('a wrong code is recorded (the use case answers invalid_code); the state counts it', () => {
    given([created(), codeSent('ops@acme.example', '123456', 0)]).when(confirm('123457'), at(MIN)).then([rejected]);
    const state = foldBusiness([created(), codeSent('ops@acme.example', '123456', 0), rejected, rejected]);
    expect(state.status === 'active' && state.pendingAlert?.wrongTries).toBe(2);
  });

  it('a malformed code is 400 invalid_code (field code) and not counted as a try', () => {
    for (const code of ['12345', '1234567', 'abcdef', '', '12 34 5x']) given([created(), codeSent('ops@acme.example', '123456', 0)]).when(confirm(code)).thenRefused('invalid_code', 'code');
  });

  it('after 5 wrong tries: 429 too_many_attempts, even with the right code, until a new code', () => {
    const five = [created(), codeSent('ops@acme.example', '123456', 0), rejected, rejected, rejected, rejected, rejected];
    const refusal = given(five).when(confirm('123456'), at(2 * MIN)).thenRefused('too_many_attempts', 'code');
    // Retry-After: until the dead code expires (audit lim F1, 2026-11-30; was a minute after the last code, then 1 s for ever)
    expect(refusal.details.retry_after).toBe(13 * 60);
    expect(given(five).when(confirm('123456'), at(15 * MIN - 500)).thenRefused('too_many_attempts', 'code').details.retry_after).toBe(1);
    // once it has expired the answer is the expired code's (ask for a new code), not another 429
    given(five).when(confirm('123456'), at(15 * MIN)).thenRefused('code_expired', 'code');
    given([...five, codeSent('ops@acme.example', '222222', 3 * MIN, 0, SALT2)]).when(confirm('222222'), at(4 * MIN)).then([confirmed('ops@acme.example')]);
    given([created(), codeSent('ops@acme.example', '123456', 0), rejected, rejected, rejected, rejected]).when(confirm('123456'), at(MIN)).then([confirmed('ops@acme.example')]);
  });

  it('a code older than 15 minutes is 400 code_expired', () => {
    given([created(), codeSent('ops@acme.example', '123456', 0)]).when(confirm('123456'), at(15 * MIN)).thenRefused('code_expired', 'code');
    given([created(), codeSent('ops@acme.example', '123456', 0)]).when(confirm('123456'), at(15 * MIN - 1)).then([confirmed('ops@acme.example')]);
  });

  it('nothing pending, or pending 24 hours, is 409 verification_expired', () => {
    given([created()]).when(confirm('123456')).thenRefused('verification_expired');
    given([created(), codeSent('ops@acme.example', '123456', 0), confirmed('ops@acme.example')]).when(confirm('123456')).thenRefused('verification_expired');
    // a resend keeps the address's first time: 24 hours from it, whatever the latest code
    given([created(), codeSent('ops@acme.example', '123456', 0), codeSent('ops@acme.example', '333333', 24 * 60 * MIN - 5 * MIN, 0, SALT2)])
      .when(confirm('333333'), at(24 * 60 * MIN))
      .thenRefused('verification_expired');
  });

  it('another business command on a missing business is not_found', () => {
    given([]).when(confirm('123456')).thenRefused('not_found');
  });
});

describe('new alert address (decider)', () => {
  it('records the code sent (hash and salt, never the code) and the address as pending', () => {
    const events = decide(send('new@acme.example', SALT2, '918273'), foldBusiness([created()]), at(0));
    expect(events).toEqual([codeSent('new@acme.example', '918273', 0, 0, SALT2)]);
    expect(JSON.stringify(events)).not.toContain('918273');
  });

  it('the current alert address again sends nothing', () => {
    given([created(), codeSent('ops@acme.example', '123456', 0), confirmed('ops@acme.example')]).when(send('OPS@acme.example')).then([]);
  });

  it('the pending address again: a new code at most once a minute, 5 in all (429 too_many_emails with retry_after)', () => {
    const first = [created(), codeSent('ops@acme.example', '123456', 0)];
    const soon = given(first).when(send('ops@acme.example'), at(30_000)).thenRefused('too_many_emails', 'alert_email');
    expect(soon.details.retry_after).toBe(30);
    given(first).when(send('ops@acme.example', SALT2, '654321'), at(MIN)).then([codeSent('ops@acme.example', '654321', MIN, 0, SALT2)]);
    const five = [...first, codeSent('ops@acme.example', '1', 2 * MIN, 0), codeSent('ops@acme.example', '2', 4 * MIN, 0), codeSent('ops@acme.example', '3', 6 * MIN, 0), codeSent('ops@acme.example', '4', 8 * MIN, 0)];
    given(five).when(send('ops@acme.example'), at(20 * MIN)).thenRefused('too_many_emails', 'alert_email');
    // another address starts again
    given(five).when(send('other@acme.example', SALT2, '654321'), at(20 * MIN)).then([codeSent('other@acme.example', '654321', 20 * MIN, 20 * MIN, SALT2)]);
  });

  it('the old pending address after 24 hours starts a new wait', () => {
    given([created(), codeSent('ops@acme.example', '123456', 0)])
      .when(send('ops@acme.example', SALT2, '654321'), at(24 * 60 * MIN))
      .then([codeSent('ops@acme.example', '654321', 24 * 60 * MIN, 24 * 60 * MIN, SALT2)]);
  });
});

describe('business settings and referral code (decider)', () => {
  it('records only the fields that change; none → no event', () => {
    given([created({ website: 'https://acme.example' })])
      .when({ type: 'ChangeBusinessSettings', businessId: 'biz_1', change: { name: 'Acme 2', website: 'https://acme.example', email_alerts: false, product_updates: false } })
      .then([{ type: 'BusinessSettingsChanged', data: { business_id: 'biz_1', name: 'Acme 2', email_alerts: false } }]);
    given([created()]).when({ type: 'ChangeBusinessSettings', businessId: 'biz_1', change: { name: 'Acme', email_alerts: true } }).then([]);
  });

  it('changes the referral code until the business has a wallet (409 referral_locked)', () => {
    given([created()])
      .when({ type: 'ChangeReferralCode', businessId: 'biz_1', code: 'acme-shop', hasWallet: false })
      .then([{ type: 'ReferralCodeChanged', data: { business_id: 'biz_1', code: 'acme-shop', previous: 'acme-1' } }]);
    given([created()]).when({ type: 'ChangeReferralCode', businessId: 'biz_1', code: 'acme-shop', hasWallet: true }).thenRefused('referral_locked', 'referral_code');
    given([created()]).when({ type: 'ChangeReferralCode', businessId: 'biz_1', code: 'acme-1', hasWallet: true }).then([]);
  });

  it('records the referrer on creation', () => {
    given([])
      .when({ type: 'CreateBusiness', name: 'New', simulated: false, referralCode: 'newco-22', referredBy: { businessId: 'biz_9', code: 'acme-1' } })
      .then([created({ name: 'New', referral_code: 'newco-22', referred_by: { business_id: 'biz_9', code: 'acme-1' } })]);
  });

  it('a referral code stream is held by one business: another gets 409 referral_code_taken; released, it is free', () => {
    const claim = (businessId: string) => ({ type: 'ClaimReferralCode' as const, code: 'acme-1', businessId });
    expect(referralCodeDecider.decide(claim('biz_1'), { holder: null })).toEqual([{ type: 'ReferralCodeClaimed', data: { code: 'acme-1', business_id: 'biz_1' } }]);
    expect(referralCodeDecider.decide(claim('biz_1'), { holder: 'biz_1' })).toEqual([]);
    expect(thrownBy(DomainError, () => referralCodeDecider.decide(claim('biz_2'), { holder: 'biz_1' }))).toMatchObject({ code: 'referral_code_taken', field: 'referral_code' });
    const released = referralCodeDecider.evolve({ holder: 'biz_1' }, { type: 'ReferralCodeReleased', data: { code: 'acme-1', business_id: 'biz_1' } });
    expect(referralCodeDecider.decide(claim('biz_2'), released)).toHaveLength(1);
  });

  it('codes: the format folds case and refuses what is not letters, digits and single inner hyphens; shares round down', () => {
    expect(normalizeReferralCode(' Acme-Shop ')).toBe('acme-shop');
    for (const bad of ['abc', '-abcd', 'abcd-', 'ab--cd', 'ab_cd', 'a'.repeat(33)]) expect(normalizeReferralCode(bad)).toBeNull();
    expect(normalizeAlertCode(' 12 34 56 ')).toBe('123456');
    expect(referralShare(0)).toBe(0);
    expect(referralShare(9)).toBe(0);
    expect(referralShare(29)).toBe(2);
    expect(referralShare(1000)).toBe(100);
  });
});
