import { Command } from '@nestjs/cqrs';
import type { WriteMeta } from '@lib/eventstore';
import type { Business } from '../../views';

/**
 * The code e-mailed to a new alert address (POST /businesses/{id}/alert-email/confirm, dashboard
 * sessions only). `actingFor`: the business the caller acts for (another id is 404 not_found);
 * `code` as typed (spaces are ignored).
 */
export class ConfirmAlertEmailCommand extends Command<Business> {
  constructor(
    readonly businessId: string,
    readonly actingFor: string,
    readonly code: string,
    readonly meta: WriteMeta = {},
  ) {
    super();
  }
}
