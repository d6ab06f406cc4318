import { DynamicModule, Module } from '@nestjs/common';
import { AppConfig, CoreModule } from '@lib/core';
import { HealthController } from './health.controller';

@Module({})
export class AppModule {
  static forRoot(config: AppConfig): DynamicModule {
    return { module: AppModule, imports: [CoreModule.forRoot(config)], controllers: [HealthController] };
  }
}
