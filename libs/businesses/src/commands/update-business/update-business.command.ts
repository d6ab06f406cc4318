import { Command } from '@nestjs/cqrs';
import type { Actor, WriteMeta } from '@lib/eventstore';
import type { Business } from '../../views';
import type { UpdateBusinessDto } from './update-business.dto';

/**
 * The business changes its settings (PATCH /businesses/{id}): name, website, support e-mail,
 * alert preferences, a new alert address (a code is e-mailed to it) and its referral code.
 * `actingFor` is the business the caller acts for: another id is 404 not_found.
 */
export class UpdateBusinessCommand extends Command<Business> {
  constructor(
    readonly businessId: string,
    readonly actingFor: string,
    readonly input: UpdateBusinessDto,
    readonly meta: WriteMeta & { actor?: Actor } = {},
  ) {
    super();
  }
}
