import { businessesProjector } from '@lib/businesses';
import { paymentsProjector } from '@lib/payments';
import { Projector } from './projector';
import { streamCatalogProjector } from './stream-catalog.projector';

/** Every projector the worker runs and the CLI can rebuild or verify. Capabilities add theirs here. */
export const ALL_PROJECTORS: readonly Projector[] = [streamCatalogProjector, businessesProjector, paymentsProjector];

export function findProjector(name: string, projectors: readonly Projector[] = ALL_PROJECTORS): Projector {
  const projector = projectors.find((p) => p.name === name);
  if (!projector) throw new Error(`no projection named ${JSON.stringify(name)}; known: ${projectors.map((p) => p.name).join(', ')}`);
  return projector;
}
