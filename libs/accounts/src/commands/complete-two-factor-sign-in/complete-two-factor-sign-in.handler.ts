import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { DomainRefusal } from '@lib/domain';
import { AccountsReadModel } from '../../accounts.read-model';
import { emailKey } from '../../accounts.projector';
import { tokenHash } from '../../app/secrets';
import { SessionStarter } from '../../app/session-starter';
import { liveChallenge, passwordReplaced, provedPasswordStands } from '../../two-factor/two-factor.decider';
import { TwoFactorCodes } from '../../two-factor/two-factor-codes';
import { TwoFactorWrites } from '../../two-factor/two-factor-writes';
import { isChallengeId } from '../../two-factor/totp';
import { PASSWORD_FAILURES, PasswordFailures } from '../../ports';
import { SessionView } from '../../views';
import type { StartedSession } from '../account-input';
import { CompleteTwoFactorSignInCommand } from './complete-two-factor-sign-in.command';

const expired = () => new DomainRefusal('challenge_expired', 'This two-step sign-in timed out or was used: sign in again.', 'challenge_id');

/**
 * The second step of sign-in (decision 0036): the challenge unknown, used or older than 5
 * minutes, or the password it proved replaced since (a change, a reset, an undone e-mail
 * change; addendum of 2026-11-29) → 400 challenge_expired; the person's codes locked (5 wrong across all challenges: 15
 * minutes) → 429 too_many_attempts; the code or recovery code checked (400 invalid_code, a wrong
 * one counted); the TOTP step or recovery code recorded on the person's stream (never accepted
 * twice, even by two requests at once), the challenge used, the session started — cookies as
 * sign-in sets them — and the browser noted as one that signed in (its own password count).
 */
@CommandHandler(CompleteTwoFactorSignInCommand)
export class CompleteTwoFactorSignInHandler implements ICommandHandler<CompleteTwoFactorSignInCommand, StartedSession<SessionView>> {
  constructor(
    private readonly writes: TwoFactorWrites,
    private readonly codes: TwoFactorCodes,
    private readonly sessions: SessionStarter,
    private readonly read: AccountsReadModel,
    @Inject(PASSWORD_FAILURES) private readonly failures: PasswordFailures,
  ) {}

  async execute({ input, browser, meta }: CompleteTwoFactorSignInCommand): Promise<StartedSession<SessionView>> {
    if (!isChallengeId(input.challenge_id)) throw expired();
    const now = this.writes.now();
    const { accountId, credentialsVersion } = liveChallenge(await this.writes.challengeState(input.challenge_id), now);
    const state = await this.writes.state(accountId);
    // turned off, or the password the challenge proved replaced since: over before any code is judged (the decider refuses it again on the stream)
    if (state.enabled === null) throw expired();
    if (!provedPasswordStands(state, credentialsVersion)) throw passwordReplaced();
    const personMeta = { ...meta, actor: { kind: 'person', id: accountId, name: null } };
    await this.codes.prove(accountId, state.enabled, input, now, (proof) => this.writes.decide(accountId, { type: 'AcceptTwoFactorCode', proof, credentialsVersion }, personMeta));
    await this.writes.challenge(input.challenge_id, { type: 'UseTwoFactorChallenge' }, personMeta);
    const started = await this.sessions.start(accountId, 'password', browser, personMeta);
    // the sign-in is complete: from now on this browser keeps its own failed-password count (decision 0034)
    const account = await this.read.byId(accountId);
    if (account !== null) await this.failures.signedIn(emailKey(account.email), tokenHash(started.deviceToken));
    return started;
  }
}
