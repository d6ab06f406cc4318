import { businessesProjector } from '@lib/businesses';
import { paymentsProjector } from '@lib/payments';
import { businessEventSource, paymentEventSource, webhookProjectors } from '@lib/webhooks';
import { Projector } from './projector';
import { streamCatalogProjector } from './stream-catalog.projector';

/** What a projector's output depends on beyond the log (the same for a rebuild as for the live run). */
export interface ProjectorOptions {
  /** Payment objects in API events carry their hosted checkout url (CHECKOUT_BASE_URL). */
  checkoutBaseUrl: string;
}

/** Every projector the worker runs and the CLI can rebuild or verify. Capabilities add theirs here. */
export function allProjectors(options: ProjectorOptions): readonly Projector[] {
  return [streamCatalogProjector, businessesProjector, paymentsProjector, ...webhookProjectors([businessEventSource, paymentEventSource(options)])];
}

/** The projectors with the default checkout url (names, ordering; tests). The service uses allProjectors(config). */
export const ALL_PROJECTORS: readonly Projector[] = allProjectors({ checkoutBaseUrl: 'http://localhost:3000/checkout' });

export function findProjector(name: string, projectors: readonly Projector[] = ALL_PROJECTORS): Projector {
  const projector = projectors.find((p) => p.name === name);
  if (!projector) throw new Error(`no projection named ${JSON.stringify(name)}; known: ${projectors.map((p) => p.name).join(', ')}`);
  return projector;
}
