import { Delete, Get, HttpCode, Patch, Post, applyDecorators } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiParam, ApiQuery } from '@nestjs/swagger';
import type { ReferenceObject, SchemaObject } from '@nestjs/swagger';
import type { Access, Resource } from '@lib/businesses';
import type { ErrorCode } from '@lib/http';
import { AccountRoute, LiveModeAction, Public, RequiresPermission } from '../auth/auth.decorators';
import { IdempotencyKeyIgnored } from './idempotency.interceptor';
import { ApiErrors, dataOf } from './openapi';
import { RateLimit } from './rate-limit.guard';
import { listOf } from './resource-schemas';

/**
 * Decorator presets for kinds of routes, each composed (Nest's applyDecorators) of the decorators
 * a route of that kind would otherwise repeat. applyDecorators applies them in the order given,
 * which for @ApiQuery is the order the document lists the parameters in (a stack of decorators
 * applies from the bottom up: a route's own @ApiQuery filters above a preset follow its ones).
 */

/**
 * A list route (spec §2 Lists): the `cursor` and `limit` query parameters, the page of `item` it
 * answers, and 400 invalid_request for a limit, cursor or filter it cannot read. `cursor`
 * describes the cursor parameter, where the route says more of it.
 */
export function ApiPage(item: ReferenceObject, description: string, cursor?: string) {
  return applyDecorators(
    ApiQuery({ name: 'cursor', required: false, description: cursor }),
    ApiQuery({ name: 'limit', required: false, description: '1 to 100, default 25.' }),
    ApiOkResponse({ description, schema: listOf(item) }),
    ApiErrors('invalid_request'),
  );
}

/**
 * A signed-in person's sensitive change of their own (the current password or a second factor
 * checked: /me/password, /me/two-factor, /sessions/current/step-up): a session-only route
 * (@AccountRoute), counted on the `me.sensitive` rate limit, and never stored for replay (§8.8:
 * the Idempotency-Key is ignored).
 */
export const SensitiveAccountRoute = () => applyDecorators(AccountRoute(), RateLimit('me.sensitive'), IdempotencyKeyIgnored());

/**
 * A POST that acts on an object that already exists (cancel, resend, rotate-secret, …): it
 * answers 200 with the object, not 201, and so does a replay of it (the idempotency interceptor
 * replays the route's static status).
 */
export const PostAction = (path: string) => applyDecorators(HttpCode(200), Post(path));

/**
 * What a route says of itself, in one place instead of a stack of five or six decorators:
 * - `summary`, `description`: its @ApiOperation; `id`: what its `{id}` is (@ApiParam, e.g. `whk_…`);
 * - `data`: the schema of what its `{data}` holds and the response's description (200, or 201
 *   for CreateRoute);
 * - `errors`: the error codes of its own (@ApiErrors);
 * - `access`: the permission a key needs (@RequiresPermission), or `'public'` (@Public);
 * - `live`: refused to a test key on a live business (@LiveModeAction);
 * - `rateLimit`: the rule of RATE_LIMITS it counts against (@RateLimit).
 */
export interface RouteSpec {
  summary: string;
  description?: string;
  data?: [SchemaObject | ReferenceObject, string];
  errors?: ErrorCode[];
  access?: [Resource, Access] | 'public';
  live?: true;
  id?: string;
  rateLimit?: string;
}

type Answer = typeof ApiOkResponse;

function described(spec: RouteSpec, answer: Answer): MethodDecorator[] {
  const { summary, description, id, data, errors, access, live, rateLimit } = spec;
  return [
    ApiOperation(description === undefined ? { summary } : { summary, description }),
    ...(id === undefined ? [] : [ApiParam({ name: 'id', description: id })]),
    ...(data ? [answer({ description: data[1], schema: dataOf(data[0]) })] : []),
    ...(errors?.length ? [ApiErrors(...errors)] : []),
    ...(access === 'public' ? [Public()] : access ? [RequiresPermission(...access)] : []),
    ...(live ? [LiveModeAction()] : []),
    ...(rateLimit === undefined ? [] : [RateLimit(rateLimit)]),
  ];
}

/** A GET (at `path`, or the controller's own path) answering 200 `{data}`. */
export const GetRoute = (path: string | undefined, spec: RouteSpec) => applyDecorators(...described(spec, ApiOkResponse), Get(path));

/** A POST that creates an object: 201 `{data}`. */
export const CreateRoute = (path: string | undefined, spec: RouteSpec) => applyDecorators(...described(spec, ApiCreatedResponse), Post(path));

/** A PATCH that changes an object (send only what changes): 200 `{data}`. */
export const ChangeRoute = (path: string | undefined, spec: RouteSpec) => applyDecorators(...described(spec, ApiOkResponse), Patch(path));

/** A POST acting on an object that exists (PostAction): 200 `{data}`. */
export const ActionRoute = (path: string, spec: RouteSpec) => applyDecorators(...described(spec, ApiOkResponse), PostAction(path));

/** A signed-in person's sensitive change (SensitiveAccountRoute) acting like ActionRoute: 200 `{data}`. */
export const SensitiveAccountAction = (path: string, spec: RouteSpec) => applyDecorators(...described(spec, ApiOkResponse), SensitiveAccountRoute(), PostAction(path));

/** A DELETE: 200 `{data}`. */
export const DeleteRoute = (path: string | undefined, spec: RouteSpec) => applyDecorators(...described(spec, ApiOkResponse), Delete(path));
