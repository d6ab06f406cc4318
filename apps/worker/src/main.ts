import 'reflect-metadata';
import { Logger, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { BusinessMailModule, BusinessReactorsModule } from '@lib/businesses';
import { CoreModule, assertServiceConfig, loadConfig, startupFailure } from '@lib/core';
import { CustomersModule } from '@lib/customers';
import { LinksModule } from '@lib/links';
import { MailModule } from '@lib/mail';
import { PinoNestLogger, createLogger } from '@lib/http';
import { PaymentsCoreModule } from '@lib/payments';
import { WebhookDispatcherModule } from '@lib/webhooks';
import { allProjectors } from '@lib/wiring';

/** `npm run start:worker`: projections, payment timers, the process manager's backstop and the webhook dispatcher, without the HTTP API. */
async function main(): Promise<void> {
  const config = loadConfig(process.env, [...process.argv, '--role=worker']);
  assertServiceConfig(config);
  @Module({ imports: [CoreModule.forRoot(config, allProjectors(config)), PaymentsCoreModule, CustomersModule, LinksModule, WebhookDispatcherModule, MailModule, BusinessMailModule, BusinessReactorsModule] })
  class WorkerModule {}
  // the service's logger from the first line, and a failure while modules start thrown to the catch below
  const app = await NestFactory.createApplicationContext(WorkerModule, { logger: new PinoNestLogger(createLogger(config.logLevel).child({ role: 'worker' })), abortOnError: false });
  app.enableShutdownHooks();
  new Logger('main').log('payments service: worker running');
}

main().catch((error) => {
  console.error(startupFailure(error));
  process.exit(1);
});
