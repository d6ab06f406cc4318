import { Module } from '@nestjs/common';
import { ApiKeysController } from './api-keys.controller';
import { DashboardBusinessesController } from './dashboard-businesses.controller';

/** The dashboard's API key routes and its business creation (decision 0039), over the businesses and accounts capabilities. */
@Module({ controllers: [ApiKeysController, DashboardBusinessesController] })
export class ApiKeysHttpModule {}
