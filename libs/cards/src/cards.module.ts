import { Module } from '@nestjs/common';
import { APP_CONFIG, AppConfig, DATABASE } from '@lib/core';
import type { Sql } from '@lib/database';
import { CardResultsRelay } from './relay';
import { CardRoutes } from './routes';
import { SimulatedCardProcessor, simulatedProcessors } from './simulated-processor';
import { SimulatedProcessorPages } from './simulated-pages';

const SIMULATED_PROCESSORS = Symbol('SIMULATED_PROCESSORS');

/**
 * The card processors of this deployment (decision 0026): the two simulated ones (simulated
 * businesses) and no real one (live businesses take no card), the routes over them, the relay
 * their results go through, and the simulated secure pages apps/api serves.
 */
@Module({
  providers: [
    CardResultsRelay,
    {
      provide: SIMULATED_PROCESSORS,
      useFactory: (db: Sql, relay: CardResultsRelay, config: AppConfig) => simulatedProcessors(db, relay, config.simulatedCardProcessorsDown),
      inject: [DATABASE, CardResultsRelay, APP_CONFIG],
    },
    { provide: CardRoutes, useFactory: (processors: SimulatedCardProcessor[]) => new CardRoutes(processors, []), inject: [SIMULATED_PROCESSORS] },
    { provide: SimulatedProcessorPages, useFactory: (processors: SimulatedCardProcessor[]) => new SimulatedProcessorPages(processors), inject: [SIMULATED_PROCESSORS] },
  ],
  exports: [CardResultsRelay, CardRoutes, SimulatedProcessorPages],
})
export class CardsModule {}
