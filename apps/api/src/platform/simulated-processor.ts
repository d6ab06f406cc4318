import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { CardForm, PageAnswer, SIMULATED_PROCESSOR_PATH, SimulatedProcessorPages } from '@lib/cards';

/** Form bodies of the simulated pages are small: a card number, an expiry, a CVC, a name. */
const FORM_LIMIT_BYTES = 16 * 1024;

/**
 * The simulated card processors' secure pages (decision 0026), outside /api/v1 like /docs:
 * GET and POST /simulated-processor/attempts/{ref}, POST …/{ref}/challenge. Plain Fastify routes
 * in their own encapsulated plugin, the only place that parses `application/x-www-form-urlencoded`
 * (the API keeps its JSON-only parser). The edge check, request ids and logging apply as to any
 * route; the Nest guards do not (the page is the processor's, its reference the capability).
 * The pages themselves (libs/cards SimulatedProcessorPages) carry their Content-Security-Policy.
 */
export function setupSimulatedProcessor(app: NestFastifyApplication): void {
  const fastify = app.getHttpAdapter().getInstance();
  const pages = () => app.get(SimulatedProcessorPages);
  void fastify.register(async (scope: FastifyInstance) => {
    scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: FORM_LIMIT_BYTES }, (_request, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(body as string)));
    });
    scope.get<{ Params: { ref: string } }>(`${SIMULATED_PROCESSOR_PATH}/:ref`, async (request, reply) => send(reply, await pages().show(request.params.ref)));
    scope.post<{ Params: { ref: string }; Body: CardForm }>(`${SIMULATED_PROCESSOR_PATH}/:ref`, async (request, reply) => send(reply, await pages().submit(request.params.ref, formOf(request.body))));
    scope.post<{ Params: { ref: string }; Body: CardForm }>(`${SIMULATED_PROCESSOR_PATH}/:ref/challenge`, async (request, reply) => send(reply, await pages().challenge(request.params.ref, formOf(request.body))));
  });
}

function formOf(body: unknown): CardForm {
  return body !== null && typeof body === 'object' ? (body as CardForm) : {};
}

function send(reply: FastifyReply, answer: PageAnswer): FastifyReply {
  reply.headers(answer.headers);
  if ('location' in answer) return reply.code(303).header('location', answer.location).send();
  return reply.code(answer.status).send(answer.html);
}
