import { Controller, Get, Inject } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { ChainWatchers } from '@lib/payments';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Public } from './auth/auth.decorators';
import { dataOf, schemaRef } from './platform/openapi';
import { EVENT_STORE, EventStore, formatPosition } from '@lib/eventstore';
import { ProjectionRunner } from '@lib/projections';
import { ServicePauses } from '@lib/operations';
import { WorkerHeartbeats } from '@lib/core';

@ApiTags('health')
@Controller('health')
export class HealthController {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly projections: ProjectionRunner,
    private readonly pauses: ServicePauses,
    private readonly modules: ModuleRef,
    private readonly heartbeats: WorkerHeartbeats,
  ) {}

  /** Liveness alone: the process answers HTTP (touches no store). */
  @ApiOperation({ summary: 'Liveness: the process answers HTTP' })
  @ApiOkResponse({ description: 'The process is up.', schema: dataOf(schemaRef('Health')) })
  @Public()
  @Get('live')
  live() {
    return { data: { kind: 'health', status: 'ok' } };
  }

  /** Liveness and store readiness: answers once the store has answered a read. */
  @ApiOperation({ summary: 'Liveness and store readiness, with the projections and their lag, the processes running the background work, and what the operator paused' })
  @ApiOkResponse({ description: 'The store has answered a read.', schema: dataOf(schemaRef('Health')) })
  @Public()
  @Get()
  async health() {
    const head = await this.store.headPosition();
    const projections = await this.projections.status(10_000);
    const workers = await this.heartbeats.status();
    const staleAfterSeconds = Math.round(workers.staleAfterMs / 1000);
    const issues: { code: 'projection_retrying' | 'no_worker_seen'; message: string }[] = [];
    // a projection retrying a failing batch: its reads stand still (the error is in the log, never on this public route)
    for (const p of projections.filter((p) => p.state === 'retrying')) issues.push({ code: 'projection_retrying', message: `Projection ${p.name} retries a failing batch; the error is in the log.` });
    // no worker (or `all` process) seen: timers, webhook deliveries, chain watching and the projections' own progress have stopped
    if (workers.running.length === 0) {
      const since = workers.lastSeenAt === null ? 'none seen in the last hour' : `last seen at ${workers.lastSeenAt.toISOString()}`;
      issues.push({ code: 'no_worker_seen', message: `No process running the background work (projections, timers, webhooks, chain watching) has been seen for ${staleAfterSeconds} s (${since}).` });
    }
    return {
      data: {
        kind: 'health',
        status: issues.length > 0 ? 'degraded' : 'ok',
        issues,
        store: { adapter: this.store.kind, head: formatPosition(head) },
        // state is this process's (an `api` replica runs none: stopped); updated_at is when any process last moved the checkpoint
        projections: projections.map((p) => ({ name: p.name, state: p.state, position: formatPosition(p.position), lag: p.lag, updated_at: p.updatedAt === null ? null : p.updatedAt.toISOString() })),
        workers: {
          running: workers.running.map((w) => ({ id: w.id, role: w.role, started_at: w.startedAt.toISOString(), seen_at: w.seenAt.toISOString() })),
          last_seen_at: workers.lastSeenAt?.toISOString() ?? null,
          stale_after_seconds: staleAfterSeconds,
        },
        pauses: (await this.pauses.list()).map((p) => ({ target: p.target, reason: p.reason, since: p.since })),
        // the chain watchers of this process (a worker role): where each network is, and whether its node answers
        chains: this.modules.get(ChainWatchers, { strict: false }).status().map((s) => ({
          network: s.network,
          lease_held: s.leaseHeld,
          height: s.height,
          head: s.head,
          lag_blocks: s.lagBlocks,
          pending: s.pending,
          last_error: s.consecutiveFailures > 0 ? s.lastError : null,
          backing_off_until: s.backingOffUntil?.toISOString() ?? null,
          caught_up_at: s.caughtUpAt?.toISOString() ?? null,
        })),
      },
    };
  }
}
