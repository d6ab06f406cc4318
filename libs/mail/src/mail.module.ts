import { Global, Inject, Injectable, Logger, Module, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@lib/core';
import { adapterFor } from '@lib/eventstore';
import { ConfiguredMailer, createMailer } from './create-mailer';
import { MAILER } from './mailer';

@Injectable()
class MailLifecycle implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('mail');

  constructor(@Inject(MAILER) private readonly mailer: ConfiguredMailer) {}

  onApplicationBootstrap(): void {
    this.logger.log(`e-mail goes to ${this.mailer.describe()}`);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.mailer.close();
  }
}

/** Provides MAILER (a Mailer) from the configuration: SMTP, the dev mailbox, or none (createMailer). */
@Global()
@Module({
  providers: [
    {
      provide: MAILER,
      useFactory: (config: AppConfig) => createMailer({ smtpUrl: config.smtpUrl, mailFrom: config.mailFrom, embedded: adapterFor(config) === 'embedded', dataDir: config.dataDir ?? './data' }),
      inject: [APP_CONFIG],
    },
    MailLifecycle,
  ],
  exports: [MAILER],
})
export class MailModule {}
