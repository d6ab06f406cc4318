import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DomainRefusal } from '@lib/domain';
import { ApiError } from './api-error';
import { RouteTable } from './route-table';

export const REQUEST_ID_HEADER = 'service-request-id';

/** Writes an error as §7 says: `{error: {code, message, field, request_id}}` and the header. */
export function sendApiError(reply: FastifyReply, requestId: string, error: ApiError): void {
  reply.status(error.status);
  reply.header(REQUEST_ID_HEADER, requestId);
  for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
  void reply.type('application/json; charset=utf-8').send({
    error: { ...error.details, code: error.code, message: error.message, field: error.field, request_id: requestId },
  });
}

/**
 * The only place errors become responses: `{error: {code, message, field, request_id}}` with
 * the status of the code, and `Service-Request-Id` equal to `request_id`. Anything that is not
 * an ApiError is translated here (framework errors by status) and an unexpected exception
 * becomes 500 internal_error with nothing internal in the body (it is logged instead).
 */
@Catch()
export class ApiExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('ApiExceptionFilter');

  /** `apiPrefix`: where the API's routes live (`/api/v1`), for the hint on a path sent without it. */
  constructor(
    private readonly routes: RouteTable,
    private readonly apiPrefix?: string,
  ) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    const reply = http.getResponse<FastifyReply>();

    if (exception instanceof HttpException && exception.getStatus() === 404 && !(exception instanceof ApiError)) {
      // the router matched nothing: an unknown path, or a known path with another method
      const allowed = this.routes.allowedMethods(request.url);
      if (allowed.length > 0 && !allowed.includes(request.method)) {
        reply.removeHeader(REQUEST_ID_HEADER);
        void reply.status(405).header('allow', allowed.join(', ')).send();
        return;
      }
    }
    sendApiError(reply, request.id, this.toApiError(exception, request));
  }

  /** ` Did you mean /api/v1/payments?` when the path is a route of the API without its prefix. */
  private prefixHint(url: string): string {
    const path = url.split('?')[0];
    if (this.apiPrefix === undefined || path.startsWith(`${this.apiPrefix}/`)) return '';
    return this.routes.allowedMethods(`${this.apiPrefix}${path}`).length > 0 ? ` Did you mean ${this.apiPrefix}${path}? The API's routes start with ${this.apiPrefix}.` : '';
  }

  private toApiError(exception: unknown, request: FastifyRequest): ApiError {
    if (exception instanceof DomainRefusal) return ApiError.from(exception); // a decider's refusal, or an ApiError
    if (exception instanceof HttpException) {
      switch (exception.getStatus()) {
        case 404:
          return new ApiError('not_found', `No such path: ${request.method} ${request.url.split('?')[0]}.${this.prefixHint(request.url)}`);
        case 413:
          return new ApiError('payload_too_large', 'The body is larger than 1 MiB.');
        case 415:
          return new ApiError('unsupported_media_type', 'Send the body as JSON with Content-Type: application/json.');
        case 400:
          return new ApiError('invalid_request', 'The request is malformed.');
      }
    }
    this.logger.error(`unexpected error on ${request.method} ${request.url} (${request.id})`, exception instanceof Error ? exception.stack : String(exception));
    return new ApiError('internal_error', 'Something went wrong on our side. Retry the request (with the same Idempotency-Key if it had one).');
  }
}
