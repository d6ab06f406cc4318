import 'reflect-metadata';
import { Logger, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { BusinessMailModule, BusinessReactorsModule } from '@lib/businesses';
import { CoreModule, WorkerHeartbeats, assertServiceConfig, loadConfig, startupFailure } from '@lib/core';
import { CustomersModule } from '@lib/customers';
import { LinksModule } from '@lib/links';
import { MailModule } from '@lib/mail';
import { PinoNestLogger, createLogger } from '@lib/http';
import { OperationsModule } from '@lib/operations';
import { PaymentsCoreModule } from '@lib/payments';
import { WebhookDispatcherModule } from '@lib/webhooks';
import { Metrics, allProjectors } from '@lib/wiring';

/**
 * `npm run start:worker`: projections, payment timers, the process manager's backstop, the webhook
 * dispatcher and the chain watchers, without the HTTP API. Its heartbeat (worker_heartbeats) is what
 * every process's GET /health reports; with METRICS_PORT it serves the same Prometheus metrics as
 * the API process, of the work it does.
 */
async function main(): Promise<void> {
  const config = loadConfig(process.env, [...process.argv, '--role=worker']);
  assertServiceConfig(config);
  @Module({
    imports: [CoreModule.forRoot(config, allProjectors(config)), PaymentsCoreModule, CustomersModule, LinksModule, WebhookDispatcherModule, MailModule, BusinessMailModule, BusinessReactorsModule, OperationsModule],
    providers: [Metrics],
  })
  class WorkerModule {}
  // the service's logger from the first line, and a failure while modules start thrown to the catch below
  const app = await NestFactory.createApplicationContext(WorkerModule, { logger: new PinoNestLogger(createLogger(config.logLevel).child({ role: 'worker' })), abortOnError: false });
  app.enableShutdownHooks();
  const metrics = app.get(Metrics).metricsAddress();
  new Logger('main').log(`payments service: worker running as ${app.get(WorkerHeartbeats).id} (pid ${process.pid})${metrics ? `, metrics on http://${config.metricsHost}:${metrics.port}/metrics` : ''}`);
}

main().catch((error) => {
  console.error(startupFailure(error));
  process.exit(1);
});
