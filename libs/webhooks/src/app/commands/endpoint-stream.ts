import { Inject, Injectable } from '@nestjs/common';
import { CommandRunner, EVENT_STORE, EventStore, RecordedEvent, RunOptions, RunResult, WriteMeta, metadataFor } from '@lib/eventstore';
import { WebhookDecideContext, WebhookEndpointCommand, WebhookEndpointState, webhookEndpointDecider } from '../../domain/endpoint.decider';
import type { WebhookEndpointEvent } from '../../domain/endpoint.events';
import { WebhookError } from '../../domain/errors';
import { WEBHOOK_STREAM, isWebhookId } from '../../domain/stream-categories';
import { WebhookEndpoint, WebhookEndpointRows, webhookEndpointView } from '../../read/views';
import { WebhookSecretStore } from '../secret-store';
import { WEBHOOKS_OPTIONS, WebhooksOptions, wallClock } from '../webhooks-options';

/** What an endpoint decision may know of the world: the URL policy and the endpoint's id. */
function decideContext(options: WebhooksOptions, webhookId: string): WebhookDecideContext {
  return { urlPolicy: { allowPrivate: options.allowPrivateUrls }, ids: { webhook: () => webhookId } };
}

/** The endpoint as some events of its stream leave it (the projection's own fold). */
export function endpointOf(events: readonly RecordedEvent[], webhookId: string): WebhookEndpoint {
  return webhookEndpointView(WebhookEndpointRows.of(events).endpoints.get(webhookId)!);
}

/** A write that brings a new signing secret: how it is stored pending, and the grace its activation gives the previous one. */
export interface NewSecret {
  /** Stores the secret pending; answers its id. */
  storePending: () => Promise<string>;
  /** Until when the previous secret still signs, asked when the new one becomes active. */
  graceUntil: () => Date;
}

/**
 * The write path the endpoint use cases share (create, update, delete, rotate): decide a command
 * on the endpoint's `webhook-<whk_id>` stream and append it (CommandRunner: retried on a conflict,
 * then the read models waited for) with the endpoint's decide context and the write's metadata;
 * keep a new signing secret in step with the append; answer from the stream. Each handler keeps
 * its own input checks, command and answer.
 */
@Injectable()
export class EndpointWrites {
  constructor(
    private readonly runner: CommandRunner,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    readonly secrets: WebhookSecretStore,
    @Inject(WEBHOOKS_OPTIONS) readonly options: WebhooksOptions,
  ) {}

  /** The webhooks wall clock (WebhooksOptions.now, else the system's). */
  now(): Date {
    return (this.options.now ?? wallClock)();
  }

  /**
   * Decides `command` on the endpoint's stream and appends it at the revision read; 404 not_found
   * for a malformed id (the decider answers the same for an unknown, deleted or foreign endpoint).
   */
  run(webhookId: string, command: WebhookEndpointCommand, meta: WriteMeta): Promise<RunResult<WebhookEndpointEvent, WebhookEndpointState>> {
    return this.runWith(webhookId, command, meta, {});
  }

  /**
   * `run` for a write that brings a new signing secret (create, rotate). The secret is stored
   * pending before the append — once, however many times a conflict makes the runner decide
   * again — and made active after it, at the append's revision; if the write was not recorded it
   * is forgotten (a recorded one stays: the sweep's job). So no delivery is ever signed with a
   * secret whose write the endpoint's stream does not hold. `newStream`: as RunOptions (create).
   */
  async runWithNewSecret(
    webhookId: string,
    command: WebhookEndpointCommand,
    meta: WriteMeta,
    secret: NewSecret,
    { newStream = false } = {},
  ): Promise<RunResult<WebhookEndpointEvent, WebhookEndpointState>> {
    let secretId: string | null = null;
    let recorded = false;
    try {
      return await this.runWith(webhookId, command, meta, {
        newStream,
        beforeAppend: async () => {
          secretId ??= await secret.storePending();
        },
        afterAppend: async (revision) => {
          recorded = true;
          await this.secrets.activate(secretId!, revision, secret.graceUntil());
        },
      });
    } catch (error) {
      if (secretId && !recorded) await this.secrets.discard(secretId).catch(() => undefined);
      throw error;
    }
  }

  /**
   * A write's answer: the endpoint as the stream stood once this write was decided and appended
   * (its revision; whatever the projection has reached), so a concurrent write to the same
   * endpoint never shows in another's answer (a rotation's `secret_hint` is its own secret's).
   */
  async endpoint(written: Pick<RunResult<WebhookEndpointEvent, WebhookEndpointState>, 'stream' | 'revision'>, webhookId: string): Promise<WebhookEndpoint> {
    return endpointOf(await this.store.readStream(written.stream, { maxCount: (written.revision ?? 0) + 1 }), webhookId);
  }

  private async runWith(
    webhookId: string,
    command: WebhookEndpointCommand,
    meta: WriteMeta,
    options: Pick<RunOptions<WebhookEndpointEvent, WebhookEndpointState, WebhookDecideContext>, 'newStream' | 'beforeAppend' | 'afterAppend'>,
  ): Promise<RunResult<WebhookEndpointEvent, WebhookEndpointState>> {
    if (!isWebhookId(webhookId)) throw new WebhookError('not_found', `No webhook endpoint ${webhookId}.`);
    return this.runner.run(webhookEndpointDecider, WEBHOOK_STREAM.stream(webhookId), command, { context: decideContext(this.options, webhookId), metadata: metadataFor(meta), ...options });
  }
}
