import { DynamicModule, Global, Inject, Injectable, Logger, Module, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import { Database } from '@lib/database';
import { CommandRunner, EVENT_STORE, EventStore, OpenedStore, openEventStore } from '@lib/eventstore';
import { ProjectionRunner, Projector, ReactorHost } from '@lib/projections';
import { AppConfig } from './config';
import { WorkerHeartbeats } from './heartbeats';
import { differenceWarning, recordRenderingSettings } from './rendering-settings';

export const APP_CONFIG = Symbol('APP_CONFIG');
export const DATABASE = Symbol('DATABASE');
const OPENED_STORE = Symbol('OPENED_STORE');

/**
 * Records the rendering settings and, when this process is a worker (`worker` or `all`), starts the
 * projections and its heartbeat; on shutdown marks the heartbeat stopped, stops the reactors and
 * projections, then closes the store.
 */
@Injectable()
export class CoreLifecycle implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Settings');

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(OPENED_STORE) private readonly opened: OpenedStore,
    private readonly projections: ProjectionRunner,
    private readonly reactors: ReactorHost,
    private readonly heartbeats: WorkerHeartbeats,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    // what the projections render with, for an operator's rebuild or verify (recordedRenderingSettings);
    // a setting that differs from what another process of the service recorded is said loudly (operator audit 2026-11-29, F1)
    const { recorded, differences } = await recordRenderingSettings(this.opened.db, {
      checkoutBaseUrl: this.config.checkoutBaseUrl,
      apiBaseUrl: this.config.apiBaseUrl,
      webhookAllowPrivateUrls: this.config.webhookAllowPrivateUrls,
      role: this.config.role,
    });
    for (const difference of differences) this.logger.warn(differenceWarning(difference, recorded?.role));
    if (this.config.role !== 'api') await this.projections.start();
    // seen by every process's GET /health (an `api` replica runs none of the background work)
    await this.heartbeats.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.heartbeats.stop();
    await this.reactors.stop();
    await this.projections.stop();
    await this.opened.close();
  }
}

/**
 * The event store, its SQL database, the projections, the reactor host, the command runner and the command and
 * query buses, configured from AppConfig. The
 * projectors come from the composition root (@lib/wiring's allProjectors(config)): the core
 * knows no capability.
 */
@Global()
@Module({})
export class CoreModule {
  static forRoot(config: AppConfig, projectors: readonly Projector[]): DynamicModule {
    return {
      module: CoreModule,
      // CommandBus and QueryBus (@nestjs/cqrs, global): controllers send a command or query, one handler per use case answers
      imports: [CqrsModule.forRoot()],
      providers: [
        { provide: APP_CONFIG, useValue: config },
        { provide: OPENED_STORE, useFactory: () => openEventStore(config) },
        { provide: EVENT_STORE, useFactory: (o: OpenedStore) => o.store, inject: [OPENED_STORE] },
        { provide: DATABASE, useFactory: (o: OpenedStore) => o.db, inject: [OPENED_STORE] },
        {
          provide: ProjectionRunner,
          // a failing batch is retried with backoff (the read side waits, never skips an event): each failure is logged with the batch it failed on
          useFactory: (store: EventStore, db: Database) => {
            const logger = new Logger('Projections');
            return new ProjectionRunner(store, db, projectors, {
              onError: (name, error) => logger.error(`${name}: ${error instanceof Error ? error.message : String(error)}; retrying`),
              catchUpAfterMs: config.projectionCatchUpMs,
            });
          },
          inject: [EVENT_STORE, DATABASE],
        },
        // every capability's reactors (side effects from the log), in worker roles only
        { provide: ReactorHost, useFactory: (store: EventStore, db: Database) => new ReactorHost(store, db, { enabled: config.role !== 'api' }), inject: [EVENT_STORE, DATABASE] },
        // the one way to run a command: read, fold, decide, append, retry, then read your writes
        { provide: CommandRunner, useFactory: (store: EventStore, projections: ProjectionRunner) => new CommandRunner(store, projections), inject: [EVENT_STORE, ProjectionRunner] },
        {
          provide: WorkerHeartbeats,
          useFactory: (db: Database) => {
            const logger = new Logger('WorkerHeartbeats');
            return new WorkerHeartbeats(db, config.role, config.workerStaleAfterMs, (error) => logger.warn(`heartbeat not recorded: ${error instanceof Error ? error.message : String(error)}`));
          },
          inject: [DATABASE],
        },
        CoreLifecycle,
      ],
      exports: [APP_CONFIG, EVENT_STORE, DATABASE, ProjectionRunner, ReactorHost, CommandRunner, WorkerHeartbeats],
    };
  }
}
