import { CreateEndpointHandler } from './commands/create-endpoint/create-endpoint.handler';
import { DeleteEndpointHandler } from './commands/delete-endpoint/delete-endpoint.handler';
import { EndpointWrites } from './commands/endpoint-stream';
import { ManualSends } from './commands/manual-sends';
import { ResendDeliveryHandler } from './commands/resend-delivery/resend-delivery.handler';
import { RotateSecretHandler } from './commands/rotate-secret/rotate-secret.handler';
import { SendTestEventHandler } from './commands/send-test-event/send-test-event.handler';
import { UpdateEndpointHandler } from './commands/update-endpoint/update-endpoint.handler';
import { GetDeliveryHandler } from './queries/get-delivery/get-delivery.handler';
import { GetEndpointHandler } from './queries/get-endpoint/get-endpoint.handler';
import { GetEventHandler } from './queries/get-event/get-event.handler';
import { ListDeliveriesHandler } from './queries/list-deliveries/list-deliveries.handler';
import { ListEndpointsHandler } from './queries/list-endpoints/list-endpoints.handler';
import { ListEventsHandler } from './queries/list-events/list-events.handler';

/**
 * The webhooks capability's use cases, one handler each, for the CommandBus and QueryBus, and the
 * steps several share (EndpointWrites: the endpoint write path; ManualSends: a send from this
 * process). A Nest module that lists them provides what they inject: CommandRunner, EVENT_STORE
 * and DATABASE (CoreModule), WebhookSecretStore, WebhookSender and WEBHOOKS_OPTIONS.
 */
export const WEBHOOK_HANDLERS = [
  EndpointWrites,
  ManualSends,
  CreateEndpointHandler,
  UpdateEndpointHandler,
  DeleteEndpointHandler,
  RotateSecretHandler,
  SendTestEventHandler,
  ResendDeliveryHandler,
  ListEndpointsHandler,
  GetEndpointHandler,
  ListDeliveriesHandler,
  GetDeliveryHandler,
  ListEventsHandler,
  GetEventHandler,
];
