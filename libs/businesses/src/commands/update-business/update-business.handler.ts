import { Inject, Optional } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { DATABASE } from '@lib/core';
import type { Sql } from '@lib/database';
import { findWallet } from '@lib/wallets';
import { alertCodeMessage, hashAlertCode, newAlertCode, newCodeSalt } from '../../alert-email';
import { ALERT_EMAIL_LIMITS, AlertEmailCodeRequest, AlertEmailLimits, BUSINESS_MAIL, BusinessMail, NoAlertEmailLimits } from '../../business-mail';
import { BusinessCommand, BusinessSettings, BusinessState, businessBatchDecider, businessDecider, decideAll, foldBusiness } from '../../business.decider';
import { DomainError } from '../../domain-error';
import { BusinessEvent, asBusinessEvent } from '../../events';
import type { Business } from '../../views';
import { asHttpRefusal } from '../alert-mail-refusals';
import { BusinessWrites } from '../business-writes';
import { decideContext } from '../decide-context';
import { UpdateBusinessCommand } from './update-business.command';

/**
 * PATCH /businesses/{id}: checks the caller acts for the business (else 404), decides the
 * settings, the referral code and a new alert address together on the business's stream (one
 * append). A new referral code is claimed on its own stream first (409 referral_code_taken) and
 * the previous one released after. A new alert address gets a fresh code: decided first (the
 * rules of resends: every refusal before anything is claimed), then the §8 limits spent, then
 * appended, and only once the append succeeded (the CommandRunner's afterAppend) e-mailed — so
 * of concurrent requests only the one whose append won sends a code, and those refused after
 * a lost race (429 too_many_emails) send nothing and give the limits back. SMTP down: the
 * update is withdrawn (WithdrawUndeliveredUpdate: its settings, referral code and code back to
 * what they were, the new code's claim released, the limits given back) and the answer is 503
 * email_unavailable — nothing it asked for stays. Decision 0035, addendum of 2026-11-29. Answers the business as its stream now
 * leaves it.
 */
@CommandHandler(UpdateBusinessCommand)
export class UpdateBusinessHandler implements ICommandHandler<UpdateBusinessCommand> {
  constructor(
    private readonly writes: BusinessWrites,
    @Inject(DATABASE) private readonly db: Sql,
    @Inject(BUSINESS_MAIL) private readonly mail: BusinessMail,
    @Optional() @Inject(ALERT_EMAIL_LIMITS) private readonly limits: AlertEmailLimits = new NoAlertEmailLimits(),
  ) {}

  async execute({ businessId, actingFor, input, meta }: UpdateBusinessCommand): Promise<Business> {
    if (businessId !== actingFor) throw new DomainError('not_found', `No business ${businessId}.`);
    const change: Partial<BusinessSettings> = {};
    for (const field of ['name', 'website', 'support_email', 'email_alerts', 'product_updates'] as const) {
      if (input[field] !== undefined) (change as Record<string, unknown>)[field] = input[field];
    }
    const state = foldBusiness((await this.writes.readStream(businessId)).map(asBusinessEvent).filter((e) => e !== null));
    if (state.status === 'none') throw new DomainError('not_found', `No business ${businessId}.`);

    const commands: BusinessCommand[] = [];
    if (Object.keys(change).length > 0) commands.push({ type: 'ChangeBusinessSettings', businessId, change });
    const code = input.referral_code;
    const newCode = code !== undefined && code !== state.referralCode ? code : null;
    if (newCode !== null) commands.push({ type: 'ChangeReferralCode', businessId, code: newCode, hasWallet: (await findWallet(this.db, businessId)) !== null });
    let sending: { to: string; code: string } | null = null;
    if (input.alert_email !== undefined) {
      const alertCode = newAlertCode();
      const salt = newCodeSalt();
      commands.push({ type: 'SendAlertEmailCode', businessId, email: input.alert_email, codeSalt: salt, codeHash: hashAlertCode(alertCode, salt) });
      sending = { to: input.alert_email, code: alertCode };
    }

    const context = decideContext();
    /** The limits this request spent for its code (given back unless the code was e-mailed). */
    let spent: AlertEmailCodeRequest | null = null;
    /** What the attempt about to append decided, on which state (the last decision before the append that succeeded). */
    let decided: { events: readonly BusinessEvent[]; before: BusinessState } | null = null;
    let mailed = false;
    let withdrawn = false;
    try {
      // decided once here: every refusal (referral_locked, too_many_emails …) before a claim or an e-mail
      const { events } = await this.decideFirst(commands, state, context, sending, meta);
      if (newCode !== null) await this.writes.referralCode({ type: 'ClaimReferralCode', code: newCode, businessId }, meta);
      const codeSent = events.find((e) => e.type === 'AlertEmailCodeSent');
      if (sending !== null && codeSent !== undefined) {
        // the pending address again keeps its pending_since (a new code for it); anything else starts a new alert e-mail
        const starts = state.pendingAlert === null || state.pendingAlert.pendingSince !== codeSent.data.pending_since;
        const who = { businessId, email: sending.to, actor: meta.actor ?? null, starts };
        await this.limits.beforeAlertEmailCode(who);
        spent = who;
      }
      const mail = sending;
      await this.writes.run(businessBatchDecider, businessId, commands, meta, {
        context,
        beforeAppend: async (events, before) => {
          decided = { events, before };
        },
        // only the request whose append won e-mails its code (addendum of 2026-11-29, audit F1): one refused after a
        // lost race (429 too_many_emails: a code was just sent) has sent nothing
        afterAppend: async () => {
          const update = decided!;
          if (mail === null || !update.events.some((e) => e.type === 'AlertEmailCodeSent')) return;
          try {
            await this.mail.send(alertCodeMessage(state.name, mail.to, mail.code));
          } catch (error) {
            // undelivered (BusinessMailUnavailableError: 503 email_unavailable): the update is withdrawn, so nothing it
            // recorded stays — the code, and the settings and referral code asked for with it
            await this.writes.run(businessDecider, businessId, { type: 'WithdrawUndeliveredUpdate', businessId, appended: update.events, before: update.before }, meta);
            withdrawn = true;
            throw error;
          }
          mailed = true;
          if (spent !== null) await this.limits.sent(spent);
        },
      });
    } catch (error) {
      throw asHttpRefusal(error);
    } finally {
      if (spent !== null && !mailed) await this.limits.giveBack(spent); // refused or undelivered: nothing claimed
      // the new referral code's claim, when its change was withdrawn (the old code stays the business's)
      if (withdrawn && newCode !== null) await this.writes.referralCode({ type: 'ReleaseReferralCode', code: newCode, businessId }, meta);
    }
    if (newCode !== null && state.referralCode !== null) await this.writes.referralCode({ type: 'ReleaseReferralCode', code: state.referralCode, businessId }, meta);
    return this.writes.business(businessId);
  }

  /**
   * The first decision. A new code for the pending address refused too soon (a minute after the
   * last) or past its 5 codes answers Retry-After as the longer of that wait and the §8 limits'
   * (the address's e-mail budget): the time until a code would actually be sent (decision 0035,
   * addendum of 2026-11-30, audit lim F2).
   */
  private async decideFirst(commands: BusinessCommand[], state: BusinessState, context: ReturnType<typeof decideContext>, sending: { to: string } | null, meta: UpdateBusinessCommand['meta']) {
    try {
      return decideAll(commands, state, context);
    } catch (error) {
      if (sending === null || !(error instanceof DomainError) || error.code !== 'too_many_emails' || typeof error.details.retry_after !== 'number') throw error;
      const limits = await this.limits.waitSec({ businessId: state.status === 'none' ? '' : state.id, email: sending.to, actor: meta.actor ?? null, starts: false });
      if (limits <= error.details.retry_after) throw error;
      throw new DomainError('too_many_emails', 'Too many e-mails were sent to this address: wait before asking for another code.', error.field, { ...error.details, retry_after: limits });
    }
  }
}
