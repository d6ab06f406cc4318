import { HttpCode, Post, applyDecorators } from '@nestjs/common';
import { ApiOkResponse, ApiQuery } from '@nestjs/swagger';
import type { ReferenceObject } from '@nestjs/swagger';
import { ApiErrors } from './openapi';
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
 * A POST that acts on an object that already exists (cancel, resend, rotate-secret, …): it
 * answers 200 with the object, not 201, and so does a replay of it (the idempotency interceptor
 * replays the route's static status).
 */
export const PostAction = (path: string) => applyDecorators(HttpCode(200), Post(path));
