import { DynamicModule, Global, Module } from '@nestjs/common';
import { MAILER, Mailer } from '@lib/mail';
import { BUSINESS_MAIL, BusinessMail, MailerBusinessMail } from './business-mail';

/**
 * Binds the businesses capability's mail port (BUSINESS_MAIL) for the whole app, API and worker.
 * Default: the service's mail library (libs/mail MailModule's MAILER: SMTP, the dev mailbox, or
 * none — then every send is refused: 503 email_unavailable on a new alert address, alerts wait
 * in their outbox) through MailerBusinessMail. `BusinessMailModule.using(mail)` binds another
 * implementation and, passed to AppModule.forRoot's imports, replaces the default.
 */
@Global()
@Module({
  providers: [{ provide: BUSINESS_MAIL, useFactory: (mailer: Mailer) => new MailerBusinessMail(mailer), inject: [MAILER] }],
  exports: [BUSINESS_MAIL],
})
export class BusinessMailModule {
  static using(mail: BusinessMail): DynamicModule {
    return { module: BusinessMailModule, global: true, providers: [{ provide: BUSINESS_MAIL, useValue: mail }], exports: [BUSINESS_MAIL] };
  }
}
