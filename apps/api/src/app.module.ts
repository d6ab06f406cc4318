import { DynamicModule, ForwardReference, Module, Type } from '@nestjs/common';
import { AccountsModule } from '@lib/accounts';
import { BusinessMailModule, BusinessReactorsModule, BusinessesModule } from '@lib/businesses';
import { ChallengeModule } from '@lib/challenge';
import { CheckoutPageModule } from '@lib/checkout-page';
import { AppConfig, CoreModule } from '@lib/core';
import { adapterFor } from '@lib/eventstore';
import { MailModule } from '@lib/mail';
import { WebhookDispatcherModule } from '@lib/webhooks';
import { OperationsModule } from '@lib/operations';
import { allProjectors } from '@lib/wiring';
import { AccountsHttpModule } from './accounts/accounts-http.module';
import { ApiKeysHttpModule } from './api-keys/api-keys-http.module';
import { BusinessController } from './businesses/business.controller';
import { CustomersHttpModule } from './customers/customers-http.module';
import { HealthController } from './health.controller';
import { LinksHttpModule } from './links/links-http.module';
import { PaymentsHttpModule } from './payments/payments-http.module';
import { PlatformModule } from './platform/platform.module';
import { SearchHttpModule } from './search/search-http.module';
import { WalletsHttpModule } from './wallets/wallets-http.module';
import { WebhooksModule } from './webhooks/webhooks.module';

type Import = Type | DynamicModule | ForwardReference;

/** True when `imports` already brings `module` (itself or a dynamic variant such as WebhooksModule.withResolver). */
function brings(imports: Import[], module: Type): boolean {
  return imports.some((i) => i === module || (typeof i === 'object' && 'module' in i && i.module === module));
}

@Module({})
export class AppModule {
  /**
   * The API with every capability; `imports` adds modules (tests add probes, or a variant of a
   * capability's module, which then replaces the default one).
   */
  static forRoot(config: AppConfig, imports: Import[] = []): DynamicModule {
    const defaults: Import[] = [WebhooksModule, WebhookDispatcherModule, BusinessMailModule].filter((m) => !brings(imports, m));
    // the accounts capability with its ports' default bindings, unless a test brings its own AccountsModule.forRoot(...)
    // breached passwords: the Pwned Passwords range API, but offline (no lookup) on the embedded store (decision 0034)
    if (!brings(imports, AccountsModule)) defaults.push(AccountsModule.forRoot({ breaches: { breachSource: adapterFor(config) === 'embedded' ? 'offline' : 'pwned' } }));
    return {
      module: AppModule,
      imports: [
        CoreModule.forRoot(config, allProjectors(config)),
        PlatformModule,
        MailModule,
        ChallengeModule,
        BusinessesModule,
        BusinessReactorsModule,
        OperationsModule,
        PaymentsHttpModule,
        CustomersHttpModule,
        LinksHttpModule,
        SearchHttpModule,
        WalletsHttpModule,
        CheckoutPageModule,
        AccountsHttpModule,
        ApiKeysHttpModule,
        ...defaults,
        ...imports,
      ],
      controllers: [HealthController, BusinessController],
    };
  }
}
