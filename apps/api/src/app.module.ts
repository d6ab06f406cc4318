import { DynamicModule, ForwardReference, Module, Type } from '@nestjs/common';
import { AppConfig, CoreModule } from '@lib/core';
import { BusinessController } from './businesses/business.controller';
import { HealthController } from './health.controller';
import { PaymentsModule } from './payments/payments.module';
import { PlatformModule } from './platform/platform.module';

@Module({})
export class AppModule {
  static forRoot(config: AppConfig, imports: (Type | DynamicModule | ForwardReference)[] = []): DynamicModule {
    return { module: AppModule, imports: [CoreModule.forRoot(config), PlatformModule, PaymentsModule, ...imports], controllers: [HealthController, BusinessController] };
  }
}
