import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost, ModuleRef } from '@nestjs/core';
import type { FastifyInstance } from 'fastify';
import { Server, createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { ServicePauses } from '@lib/operations';
import { ChainWatcherStatus } from '@lib/chains';
import { ChainWatchers, PAYMENT_PAGES } from '@lib/payments';
import { APP_CONFIG, AppConfig, WorkerHeartbeats } from '@lib/core';
import { TimerStore } from '@lib/timers';
import { ProjectionRunner, ProjectionStatus, ScopedReadCache } from '@lib/projections';

/**
 * Prometheus metrics: requests (count and latency by method, route and status; api roles),
 * projection lag and position, chain watchers, the timers' backlog, the processes running the
 * background work (their heartbeats), and the process's own. Served on a separate listener
 * (METRICS_PORT, on METRICS_HOST, default 127.0.0.1) at /metrics, by the API process and by the
 * worker alike: the public API answers only under /api/v1 and metrics are for the operator's
 * scraper, not for clients.
 */
@Injectable()
export class Metrics implements OnModuleInit, OnApplicationBootstrap, OnApplicationShutdown {
  readonly registry = new Registry();
  private server: Server | null = null;
  private readonly requests = new Counter({ name: 'http_requests_total', help: 'HTTP requests answered', labelNames: ['method', 'route', 'status'], registers: [this.registry] });
  private readonly latency = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request duration',
    labelNames: ['method', 'route'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [this.registry],
  });

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly adapterHost: HttpAdapterHost,
    private readonly projections: ProjectionRunner,
    pauses: ServicePauses,
    modules: ModuleRef,
    heartbeats: WorkerHeartbeats,
  ) {
    collectDefaultMetrics({ register: this.registry });
    // the chain watchers this process runs (worker roles): one series per watched network
    const watchers = () => modules.get(ChainWatchers, { strict: false }).status();
    const chainGauge = (name: string, help: string, value: (s: ChainWatcherStatus) => number | null) =>
      new Gauge({
        name,
        help,
        labelNames: ['network'],
        registers: [this.registry],
        collect() {
          this.reset();
          for (const status of watchers()) {
            const v = value(status);
            if (v !== null) this.set({ network: status.network }, v);
          }
        },
      });
    chainGauge('chain_watcher_lag_blocks', "Blocks between the node's head and the last block the watcher scanned", (s) => s.lagBlocks);
    chainGauge('chain_watcher_failures', 'Failed rounds in a row (0: the node and the database answer)', (s) => s.consecutiveFailures);
    chainGauge('chain_watcher_lease_held', '1 while this process is the one watching the network', (s) => (s.leaseHeld ? 1 : 0));
    chainGauge('chain_watcher_pending_transfers', 'Transfers reported and not final yet', (s) => s.pending);
    // live quotes wait past their end for this (decision 0025, addendum of 2026-11-29): a growing age holds them open
    chainGauge('chain_watcher_read_through_age_seconds', 'Seconds since the watcher last caught up with the head the node answered', (s) =>
      s.caughtUpAt === null ? null : Math.max(0, (Date.now() - s.caughtUpAt.getTime()) / 1000),
    );
    new Gauge({
      name: 'service_paused',
      help: 'What the operator paused for every business (1 per target while paused: checkouts, card_payments, signups, network:<network>)',
      labelNames: ['target'],
      registers: [this.registry],
      async collect() {
        this.reset();
        for (const pause of await pauses.list()) this.set({ target: pause.target }, 1);
      },
    });
    // the GET /payments pages this process keeps (decision 0019): how often a page came from memory
    const pages = () => modules.get<ScopedReadCache>(PAYMENT_PAGES, { strict: false }).stats;
    const pageCounter = (name: string, help: string, value: (s: ScopedReadCache['stats']) => number) =>
      new Counter({
        name,
        help,
        registers: [this.registry],
        collect() {
          this.reset();
          this.inc(value(pages()));
        },
      });
    pageCounter('payment_pages_kept_hits_total', 'GET /payments pages answered from memory', (s) => s.hits);
    pageCounter('payment_pages_kept_misses_total', 'GET /payments pages read from the database (not kept, changed, or too old)', (s) => s.misses);
    new Gauge({
      name: 'payment_pages_kept_bytes',
      help: 'Characters of GET /payments pages kept in memory (bounded by READ_CACHE_MB)',
      registers: [this.registry],
      collect() {
        this.set(pages().bytes);
      },
    });
    // the processes running the background work, as every process's GET /health sees them (decision 0017, addendum of 2026-11-29)
    const workers = readOncePerScrape(() => heartbeats.status());
    new Gauge({
      name: 'workers_running',
      help: 'Processes running the background work (role worker or all) seen within WORKER_STALE_AFTER_SECONDS; 0: timers, webhooks and chain watching have stopped',
      registers: [this.registry],
      async collect() {
        this.set((await workers()).running.length);
      },
    });
    new Gauge({
      name: 'worker_last_seen_age_seconds',
      help: 'Seconds since any process running the background work last recorded its heartbeat (absent: none in the last hour)',
      registers: [this.registry],
      async collect() {
        this.reset();
        const last = (await workers()).lastSeenAt;
        if (last !== null) this.set(Math.max(0, (Date.now() - last.getTime()) / 1000));
      },
    });
    // what a stopped or slow worker leaves undone: timers due by their business's clock and still scheduled
    const backlog = readOncePerScrape(() => modules.get(TimerStore, { strict: false }).backlog());
    new Gauge({
      name: 'timers_due',
      help: 'Timers (confirmations, expiries, webhook retries) due and not fired yet',
      registers: [this.registry],
      async collect() {
        this.set((await backlog()).due);
      },
    });
    new Gauge({
      name: 'timers_oldest_due_seconds',
      help: 'Seconds the oldest timer not fired yet has been due (0: none due)',
      registers: [this.registry],
      async collect() {
        this.set((await backlog()).oldestDueSeconds);
      },
    });
    // one status read per scrape serves the three projection gauges (collected concurrently)
    let read: { at: number; statuses: Promise<ProjectionStatus[]> } | null = null;
    const statuses = () => {
      if (!read || Date.now() - read.at > 500) read = { at: Date.now(), statuses: this.projections.status(100_000) };
      return read.statuses;
    };
    const gauge = (name: string, help: string, value: (s: ProjectionStatus) => number) =>
      new Gauge({
        name,
        help,
        labelNames: ['projection'],
        registers: [this.registry],
        async collect() {
          for (const status of await statuses()) this.set({ projection: status.name }, value(status));
        },
      });
    gauge('projection_lag_events', 'Events in the log after the projection checkpoint (counted up to 100000)', (s) => s.lag);
    gauge('projection_events_applied', 'Events applied since the last rebuild', (s) => s.events);
    gauge('projection_running', '1 while the projection runs in this process, 0 when stopped or retrying after an error', (s) => (s.state === 'running' ? 1 : 0));
  }

  onModuleInit(): void {
    const fastify = this.adapterHost.httpAdapter?.getInstance<FastifyInstance>();
    if (!fastify) return;
    fastify.addHook('onResponse', async (request, reply) => {
      const route = request.routeOptions?.url ?? 'unmatched';
      this.requests.inc({ method: request.method, route, status: String(reply.statusCode) });
      this.latency.observe({ method: request.method, route }, reply.elapsedTime / 1000);
    });
  }

  async onApplicationBootstrap(): Promise<void> {
    if (this.config.metricsPort === null) return;
    this.server = createServer((req, res) => {
      if (req.method !== 'GET' || req.url !== '/metrics') {
        res.writeHead(404).end();
        return;
      }
      this.registry.metrics().then(
        (text) => res.writeHead(200, { 'content-type': this.registry.contentType }).end(text),
        () => res.writeHead(500).end(),
      );
    });
    await new Promise<void>((resolve, reject) => {
      this.server!.once('error', reject);
      this.server!.listen(this.config.metricsPort!, this.config.metricsHost, () => resolve());
    });
  }

  /** The port metrics are served on (tests use port 0). */
  metricsAddress(): AddressInfo | null {
    return (this.server?.address() as AddressInfo | null) ?? null;
  }

  async onApplicationShutdown(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

/** `read()` shared by the gauges of one scrape: read again once half a second has passed. */
function readOncePerScrape<T>(read: () => T): () => T {
  let last: { at: number; value: T } | null = null;
  return () => {
    if (last === null || Date.now() - last.at > 500) last = { at: Date.now(), value: read() };
    return last.value;
  };
}
