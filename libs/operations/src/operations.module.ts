import { Module } from '@nestjs/common';
import { CommandRunner, EVENT_STORE, EventStore } from '@lib/eventstore';
import { ServicePauses } from './pauses';

/** The operator's controls over the whole service (pauses), for the processes that check or show them. */
@Module({
  providers: [{ provide: ServicePauses, useFactory: (store: EventStore, runner: CommandRunner) => new ServicePauses(store, runner), inject: [EVENT_STORE, CommandRunner] }],
  exports: [ServicePauses],
})
export class OperationsModule {}
