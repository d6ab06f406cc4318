import type { FastifyReply, FastifyRequest } from 'fastify';
import { LogController } from 'fastify';
import pino, { DestinationStream, Logger } from 'pino';

/** Paths pino blanks out wherever they appear in a log line: credentials and secrets. */
export const REDACTED_PATHS = [
  'authorization',
  'cookie',
  'headers.authorization',
  'headers.cookie',
  'req.headers.authorization',
  'req.headers.cookie',
  'request.headers.authorization',
  'request.headers.cookie',
  '*.authorization',
  '*.cookie',
  'secret',
  'secret_key',
  'publishable_key',
  'password',
  'token',
  '*.secret',
  '*.secret_key',
  '*.publishable_key',
  '*.password',
  '*.token',
  // dashboard sign-in and password change (decision 0034)
  'current_password',
  'new_password',
  '*.current_password',
  '*.new_password',
  '*["set-cookie"]',
  '*["service-challenge"]',
];

/** The service's JSON logger (pino): one line per event, secrets redacted. */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service: 'payments' },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      formatters: { level: (label) => ({ level: label }) },
    },
    destination,
  );
}

/**
 * One line per request when it completes: request id, method, route, path, status and
 * duration. Nothing from the headers or body, so no credential can reach the log this way.
 * `request_id` comes from the request's child logger (`requestIdLogLabel`), bound once for every
 * line logged through `request.log`; the line must not add it again (a key written twice).
 */
export class RequestLogController extends LogController {
  constructor() {
    super({ requestIdLogLabel: 'request_id' });
  }

  override incomingRequest(): void {
    /* one line per request, at completion */
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const line = {
      method: request.method,
      route: request.routeOptions?.url ?? null,
      path: request.url.split('?')[0],
      status: reply.statusCode,
      duration_ms: Math.round(reply.elapsedTime * 100) / 100,
      ...(error ? { error: error.message } : {}),
    };
    request.log[reply.statusCode >= 500 ? 'error' : 'info'](line, 'request');
  }
}

/** Nest's own log lines (start-up, the error filter) through the same pino logger, as JSON. */
export class PinoNestLogger {
  constructor(private readonly logger: Logger) {}
  log(message: unknown, context?: string) {
    this.logger.info({ context }, String(message));
  }
  error(message: unknown, trace?: string, context?: string) {
    this.logger.error({ context, trace }, String(message));
  }
  warn(message: unknown, context?: string) {
    this.logger.warn({ context }, String(message));
  }
  debug(message: unknown, context?: string) {
    this.logger.debug({ context }, String(message));
  }
  verbose(message: unknown, context?: string) {
    this.logger.trace({ context }, String(message));
  }
}
