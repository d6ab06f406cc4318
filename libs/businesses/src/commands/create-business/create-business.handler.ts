import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { newId } from '@lib/http';
import { KeyKind, KeyMode, MintedKey, mintApiKey } from '../../api-keys';
import { BusinessCommandStep, businessBatchDecider, foldBusiness } from '../../business.decider';
import { businessView, compareKeyRows, apiKeyView } from '../../views';
import { BusinessWrites } from '../business-writes';
import { decideContext } from '../decide-context';
import { validInput } from '../valid-input';
import { DomainError } from '../../domain-error';
import { newReferralCode, normalizeReferralCode } from '../../referrals';
import { CreateBusinessCommand, CreatedBusiness } from './create-business.command';
import { CreateBusinessDto } from './create-business.dto';
import { asBusinessEvent } from '../../events';

/**
 * The business a referral code (as given: trimmed, case folded) names and that may refer: its
 * claim stream's holder, unless that business is suspended — GET /public/referrals/{code}
 * answers 404 for a suspended referrer, so a sign-up does not record one either (decision 0035).
 * Null otherwise.
 */
export async function activeReferrer(writes: BusinessWrites, given: string): Promise<{ businessId: string; code: string } | null> {
  const code = normalizeReferralCode(given);
  const holder = code === null ? null : await writes.referralCodeHolder(code);
  if (code === null || holder === null) return null;
  const state = foldBusiness((await writes.readStream(holder)).map(asBusinessEvent).filter((e) => e !== null));
  return state.status === 'active' && !state.suspended ? { businessId: holder, code } : null;
}

/**
 * Validates the input, mints the two keys (only their hashes reach the decider), decides the
 * business and its keys in a row on a new stream, appends them at once, waits for the read
 * models (CommandRunner), and answers from the stream it appended to.
 */
@CommandHandler(CreateBusinessCommand)
export class CreateBusinessHandler implements ICommandHandler<CreateBusinessCommand> {
  constructor(private readonly writes: BusinessWrites) {}

  async execute({ input, meta }: CreateBusinessCommand): Promise<CreatedBusiness> {
    const valid = await validInput(CreateBusinessDto, input);
    const mode: KeyMode = valid.simulated ? 'test' : 'live';
    const secret = mintApiKey('secret', mode);
    const publishable = mintApiKey('publishable', mode);
    const businessId = newId('biz');
    const referredBy = await this.referrer(valid.referral_code ?? null);
    const referralCode = await this.claimNewCode(businessId, meta);
    const key =
      (minted: MintedKey, kind: KeyKind): BusinessCommandStep =>
      (state) => ({ type: 'CreateApiKey', businessId: state.status === 'active' ? state.id : '', kind, mode, secretHash: minted.secret_hash, last4: minted.last4 });
    await this.writes.run(
      businessBatchDecider,
      businessId,
      [
        { type: 'CreateBusiness', name: valid.name, simulated: valid.simulated, website: valid.website ?? null, supportEmail: valid.support_email ?? null, referralCode, referredBy },
        key(secret, 'secret'),
        key(publishable, 'publishable'),
      ],
      meta,
      { context: decideContext({ business: () => businessId }), newStream: true },
    );
    const rows = await this.writes.rows(businessId);
    return {
      business: businessView(rows.businesses.get(businessId)!),
      secret_key: secret.secret,
      publishable_key: publishable.secret,
      keys: [...rows.keys.values()].sort(compareKeyRows).map(apiKeyView),
    };
  }

  /** The business a referral code names (activeReferrer), or 400 invalid_request (field referral_code). */
  private async referrer(given: string | null): Promise<{ businessId: string; code: string } | null> {
    if (given === null) return null;
    const referrer = await activeReferrer(this.writes, given);
    if (referrer === null) throw new DomainError('invalid_request', 'No business has this referral code.', 'referral_code');
    return referrer;
  }

  /** A fresh generated referral code, claimed for the new business (another when one is taken). */
  private async claimNewCode(businessId: string, meta: CreateBusinessCommand['meta']): Promise<string> {
    for (let attempt = 1; ; attempt++) {
      const code = newReferralCode();
      try {
        await this.writes.referralCode({ type: 'ClaimReferralCode', code, businessId }, meta);
        return code;
      } catch (error) {
        if (!(error instanceof DomainError && error.code === 'referral_code_taken') || attempt >= 5) throw error;
      }
    }
  }
}
