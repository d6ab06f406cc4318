import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { canonicalRails, carriedAssets } from '@lib/businesses';
import { idFromSeed, newId } from '@lib/http';
import { checkMetadata } from '@lib/payments';
import type { LinkFields } from '../../events';
import { LinkView } from '../../views';
import { LinkWrites, checkLinkPrice } from '../link-writes';
import { CreateLinkCommand } from './create-link.command';

/** Length of a link's code (base62): short enough for a URL, 62^12 codes so two never meet. */
export const LINK_CODE_LENGTH = 12;

/**
 * Creates a payment link (POST /links; decision 0030): the price for its currency (as a
 * payment's), the metadata rules of payments; a new id and code (random, or derived from the
 * Idempotency-Key's request; the code is the last segment of its url), then LinkCreated on its stream, the read models waited for, the link
 * answered. Test keys on a live business are refused before (403 test_mode_unavailable, §5.4).
 */
@CommandHandler(CreateLinkCommand)
export class CreateLinkHandler implements ICommandHandler<CreateLinkCommand, LinkView> {
  constructor(private readonly writes: LinkWrites) {}

  async execute({ business, input, meta }: CreateLinkCommand): Promise<LinkView> {
    const rails = input.rails === undefined || input.rails === null ? null : canonicalRails(input.rails);
    checkLinkPrice(input.amount, input.currency);
    const fields: LinkFields = {
      name: input.name,
      description: input.description ?? null,
      amount: input.amount,
      currency: input.currency,
      rails,
      assets: input.assets === undefined || input.assets === null ? null : carriedAssets(input.assets),
      success_url: input.success_url ?? null,
      ask_email: input.ask_email ?? false,
      metadata: checkMetadata(input.metadata),
    };
    // under an Idempotency-Key both come from the request: a run after one that died between its
    // append and its kept response decides the same creation again, which the decider takes as done
    const seed = meta.idempotencySeed;
    const linkId = seed === undefined ? newId('lnk') : idFromSeed('lnk', seed);
    const code = (seed === undefined ? newId('x') : idFromSeed('x', `${seed}#code`)).slice(2, 2 + LINK_CODE_LENGTH);
    await this.writes.decide(linkId, { type: 'CreateLink', linkId, businessId: business.id, mode: business.simulated ? 'test' : 'live', code, fields }, meta);
    return this.writes.answer(business.id, linkId);
  }
}
