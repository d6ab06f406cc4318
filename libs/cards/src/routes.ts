import type { CardProcessor } from './processor.port';

/**
 * Which card processors a checkout may use, in order (its routes; decision 0026). A simulated
 * business pays through the simulated processors; a live business has no real processor
 * configured, so it takes no card. Countries no processor serves are refused by every route.
 */

/** Countries no processor serves (sanctions): a card checkout there is rail_unavailable. */
export const UNSERVED_COUNTRIES: readonly string[] = ['CU', 'IR', 'KP', 'SY'];

/** The names of the two simulated processors, in route order. */
export const SIMULATED_PROCESSOR_A = 'simulated_a';
export const SIMULATED_PROCESSOR_B = 'simulated_b';

/** Countries the second simulated processor does not serve: they have a single route. */
export const SIMULATED_B_EXCLUDED: readonly string[] = ['BR'];

export type CardAvailability = { available: true; routes: string[] } | { available: false; reason: 'business' | 'country' };

export class CardRoutes {
  private readonly byName: ReadonlyMap<string, CardProcessor>;

  constructor(
    /** The simulated processors, in route order. */
    private readonly simulated: readonly CardProcessor[],
    /** Real processors, in route order (none is configured in this deployment). */
    private readonly live: readonly CardProcessor[] = [],
  ) {
    this.byName = new Map([...simulated, ...live].map((p) => [p.name, p]));
  }

  /** Whether this business can take cards at all (in some country): a simulated business through the simulated processors, a live one only once a real processor is configured. */
  takesCards(business: { simulated: boolean }): boolean {
    return (business.simulated ? this.simulated : this.live).length > 0;
  }

  /** The routes (processor names, in order) a checkout of this business and country may use. */
  availability(business: { simulated: boolean }, country: string): CardAvailability {
    const processors = business.simulated ? this.simulated : this.live;
    if (!this.takesCards(business)) return { available: false, reason: 'business' };
    if (UNSERVED_COUNTRIES.includes(country)) return { available: false, reason: 'country' };
    const routes = processors.filter((p) => p.serves(country)).map((p) => p.name);
    return routes.length === 0 ? { available: false, reason: 'country' } : { available: true, routes };
  }

  /** The processor of a route (a name recorded on a checkout). */
  processor(name: string): CardProcessor {
    const processor = this.byName.get(name);
    if (!processor) throw new Error(`no card processor ${name}`);
    return processor;
  }

  all(): CardProcessor[] {
    return [...this.byName.values()];
  }
}
