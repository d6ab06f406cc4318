import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import type { FastifyRequest } from 'fastify';
import { ApiError } from '@lib/http';

const BODY_ARGUMENTS = new Set([String(RouteParamtypes.BODY), String(RouteParamtypes.RAW_BODY)]);

/**
 * §7 invalid_request "field … unknown" for the routes that take no body (cancel, supersede,
 * rotate-secret, resend, …): a body with members is refused naming the first; no body and `{}`
 * pass. Whether a route takes a body
 * is read from its handler's parameters (no `@Body()`), once per handler, so a new route is held
 * to it without saying so. Runs after authentication and rate limits, as DTO validation does.
 */
@Injectable()
export class NoBodyGuard implements CanActivate {
  private readonly takesBody = new WeakMap<object, boolean>();

  canActivate(context: ExecutionContext): boolean {
    const { body } = context.switchToHttp().getRequest<FastifyRequest>();
    // the JSON parser lets only an object through (registerJsonBodyParser)
    if (body === undefined || body === null || this.handlerTakesBody(context)) return true;
    const [first] = Object.keys(body);
    if (first === undefined) return true;
    throw new ApiError('invalid_request', `${first} is not a field of this request: it takes no body.`, first);
  }

  private handlerTakesBody(context: ExecutionContext): boolean {
    const handler = context.getHandler();
    let takes = this.takesBody.get(handler);
    if (takes === undefined) {
      const parameters = (Reflect.getMetadata(ROUTE_ARGS_METADATA, context.getClass(), handler.name) ?? {}) as Record<string, unknown>;
      takes = Object.keys(parameters).some((key) => BODY_ARGUMENTS.has(key.split(':')[0]));
      this.takesBody.set(handler, takes);
    }
    return takes;
  }
}
