import { accountsProjector, passkeysProjector } from '@lib/accounts';
import { businessesProjector } from '@lib/businesses';
import { customersProjector } from '@lib/customers';
import { linksProjector } from '@lib/links';
import { paymentsProjector } from '@lib/payments';
import { Projector, streamCatalogProjector } from '@lib/projections';
import { SEARCH_PROJECTOR } from '@lib/search';
import { walletsProjector } from '@lib/wallets';
import { businessEventSource, customerEventSource, linkEventSource, paymentEventSource, webhookProjectors } from '@lib/webhooks';

/** What a projector's output depends on beyond the log (the same for a rebuild as for the live run). */
export interface ProjectorOptions {
  /** Payment objects in API events carry their hosted checkout url (CHECKOUT_BASE_URL). */
  checkoutBaseUrl: string;
}

/**
 * Every projector the worker runs and the CLI can rebuild or verify. The projection engine
 * (@lib/projections) knows no capability: the composition roots (apps/api, apps/worker,
 * apps/cli) hand it this list. A capability adds its projectors here.
 */
export function allProjectors(options: ProjectorOptions): readonly Projector[] {
  return [...READ_MODEL_PROJECTORS, ...webhookProjectors([businessEventSource, paymentEventSource(options), customerEventSource, linkEventSource(options)])];
}

/** The projectors of the capabilities' read models (every one but the webhook events' and outbox's, which take event sources). */
export const READ_MODEL_PROJECTORS: readonly Projector[] = [streamCatalogProjector, businessesProjector, paymentsProjector, walletsProjector, customersProjector, linksProjector, SEARCH_PROJECTOR, accountsProjector, passkeysProjector];

/** The projectors with the default checkout url (names, ordering; tests). The service uses allProjectors(config). */
export const ALL_PROJECTORS: readonly Projector[] = allProjectors({ checkoutBaseUrl: 'http://localhost:3000/checkout' });
