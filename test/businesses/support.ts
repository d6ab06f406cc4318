import { BusinessService, businessesProjector } from '@lib/businesses';
import { Database } from '@lib/database';
import { EventStore } from '@lib/eventstore';
import { ProjectionRunner } from '@lib/projections';
import { StoreKind, TestStore, openTestStore } from '../support/fixtures';

export interface BusinessesSuite {
  opened: TestStore;
  store: EventStore;
  db: Database;
  /** The businesses projection, running. */
  runner: ProjectionRunner;
  service: BusinessService;
}

/**
 * The business service of a `describe` block: a fresh store of `kind` with the businesses
 * projection running, made before the block's first test and closed after its last. Read the
 * fields inside tests and hooks.
 */
export function businessesPerSuite(kind: StoreKind, prefix: string): BusinessesSuite {
  const suite = {} as BusinessesSuite;
  beforeAll(async () => {
    suite.opened = await openTestStore(kind, prefix, { pollIntervalMs: 20 });
    suite.store = suite.opened.store;
    suite.db = suite.opened.db;
    suite.runner = new ProjectionRunner(suite.store, suite.db, [businessesProjector]);
    await suite.runner.start();
    suite.service = new BusinessService(suite.store, suite.db, suite.runner);
  });
  afterAll(async () => {
    await suite.runner?.stop();
    await suite.opened?.cleanup();
  });
  return suite;
}

/**
 * Two services on the suite's store, as this process and another replica on the same database
 * would be, reading one clock the test moves (`advance`): for the authentication cache's TTL.
 */
export function twoReplicas(suite: BusinessesSuite): { here: BusinessService; elsewhere: BusinessService; advance(ms: number): void } {
  let now = Date.now();
  const clock = () => now;
  return {
    here: new BusinessService(suite.store, suite.db, suite.runner, { clock }),
    elsewhere: new BusinessService(suite.store, suite.db, suite.runner, { clock }),
    advance: (ms) => void (now += ms),
  };
}
