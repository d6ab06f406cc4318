import { DynamicModule, ForwardReference, Module, Type } from '@nestjs/common';
import { AppConfig, CoreModule } from '@lib/core';
import { HealthController } from './health.controller';

@Module({})
export class AppModule {
  static forRoot(config: AppConfig, imports: (Type | DynamicModule | ForwardReference)[] = []): DynamicModule {
    return { module: AppModule, imports: [CoreModule.forRoot(config), ...imports], controllers: [HealthController] };
  }
}
