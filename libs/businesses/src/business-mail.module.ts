import { DynamicModule, Global, Module } from '@nestjs/common';
import { BUSINESS_MAIL, BusinessMail, NoBusinessMail } from './business-mail';

/**
 * Binds the businesses capability's mail port (BUSINESS_MAIL) for the whole app, API and worker.
 * Default: NoBusinessMail (every send refused: 503 email_unavailable on a new alert address;
 * alerts wait in their outbox). `BusinessMailModule.using(mail)` binds another implementation
 * and, passed to AppModule.forRoot's imports, replaces the default (tests pass a capturing one).
 * The service's mail library (libs/mail, token MAILER) is bound here through an adapter once it
 * exists in this tree.
 */
@Global()
@Module({
  providers: [{ provide: BUSINESS_MAIL, useClass: NoBusinessMail }],
  exports: [BUSINESS_MAIL],
})
export class BusinessMailModule {
  static using(mail: BusinessMail): DynamicModule {
    return { module: BusinessMailModule, global: true, providers: [{ provide: BUSINESS_MAIL, useValue: mail }], exports: [BUSINESS_MAIL] };
  }
}
