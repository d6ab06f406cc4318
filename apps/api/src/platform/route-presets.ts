import { Delete, Get, HttpCode, Patch, Post, applyDecorators } from '@nestjs/common';
import { ApiAcceptedResponse, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiParam, ApiQuery } from '@nestjs/swagger';
import type { ReferenceObject, SchemaObject } from '@nestjs/swagger';
import type { Access, Resource } from '@lib/businesses';
import { type ChallengeForm, RequiresChallenge } from '@lib/challenge';
import type { ErrorCode } from '@lib/http';
import { AccountRoute, DashboardOnly, LiveModeAction, Public, RequiresPermission, SameOriginOnly } from '../auth/auth.decorators';
import { RequiresStepUp } from '../auth/step-up';
import { IdempotencyKeyIgnored } from './idempotency.interceptor';
import { ApiErrorWhen, ApiErrors, dataOf } from './openapi';
import { RateLimit } from './rate-limit.guard';
import { listOf } from './resource-schemas';
import { ShownOnce } from './shown-once';

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

/**
 * Who may call a route and what it is held to (each key one decorator), for RouteRules and the
 * route presets below:
 * - `access`: the permission a key needs (@RequiresPermission); `'public'` (@Public);
 *   `'same-origin'`, public but from the dashboard's own pages only (@Public, @SameOriginOnly:
 *   sign-up, sign-in, the e-mailed links); `'account'`, the signed-in person (@AccountRoute);
 * - `dashboardOnly`: dashboard sessions only (@DashboardOnly); `stepUp`: a session needs a
 *   step-up within 15 minutes (@RequiresStepUp);
 * - `challenge`: the bot challenge of that form (@RequiresChallenge);
 * - `live`: refused to a test key on a live business (@LiveModeAction);
 * - `rateLimit`: the rule of RATE_LIMITS it counts against (@RateLimit);
 * - `replay: false`: never stored for replay (§8.8: the Idempotency-Key is ignored), for answers
 *   that set cookies or check a password;
 * - `shownOnce`: the answer holds a secret shown this once (@ShownOnce: `Cache-Control: no-store`,
 *   and never stored for replay, so `replay: false` goes without saying).
 */
export interface RouteRules {
  access?: [Resource, Access] | 'public' | 'same-origin' | 'account';
  dashboardOnly?: true;
  stepUp?: true;
  challenge?: ChallengeForm;
  live?: true;
  rateLimit?: string;
  replay?: false;
  shownOnce?: true;
}

function ruled(rules: RouteRules): MethodDecorator[] {
  const { access, dashboardOnly, stepUp, challenge, live, rateLimit, replay, shownOnce } = rules;
  const who =
    access === 'public' ? [Public()] : access === 'same-origin' ? [Public(), SameOriginOnly()] : access === 'account' ? [AccountRoute()] : access ? [RequiresPermission(...access)] : [];
  return [
    ...who,
    ...(dashboardOnly ? [DashboardOnly()] : []),
    ...(stepUp ? [RequiresStepUp()] : []),
    ...(challenge === undefined ? [] : [RequiresChallenge(challenge)]),
    ...(live ? [LiveModeAction()] : []),
    ...(rateLimit === undefined ? [] : [RateLimit(rateLimit)]),
    ...(shownOnce ? [ShownOnce()] : replay === false ? [IdempotencyKeyIgnored()] : []),
  ];
}

/**
 * A public form of the dashboard's own pages (sign-up, sign-in, password resets, the e-mailed
 * links): from the same origin only, counted on the `rateLimit` rule, behind the bot challenge of
 * the `challenge` form when given, and never stored for replay (its answers set cookies or spend
 * a token).
 */
export const publicForm = (rateLimit: string, challenge?: ChallengeForm): RouteRules => ({ access: 'same-origin', ...(challenge === undefined ? {} : { challenge }), rateLimit, replay: false });

/**
 * A route that spends a link e-mailed to a person (libs/http link-tokens.ts: a password reset, an
 * e-mail change's undo, a wallet change's cancel): a public form on the `tokens` rule that every
 * link shares, answering 400 invalid_token for a used, replaced or unknown link, then the route's
 * own `errors`.
 */
export const emailedLink = (...errors: ErrorCode[]): RouteRules & Pick<RouteSpec, 'errors'> => ({ errors: ['invalid_token', ...errors], ...publicForm('tokens') });

/** A route's rules alone (RouteRules), for a route that documents itself. */
export const RouteRules = (rules: RouteRules) => applyDecorators(...ruled(rules));

/**
 * A signed-in person's sensitive change of their own (the current password or a second factor
 * checked: /me/password, /me/two-factor, /sessions/current/step-up): a session-only route,
 * counted on the `me.sensitive` rate limit, and never stored for replay.
 */
export const SENSITIVE_ACCOUNT: RouteRules = { access: 'account', rateLimit: 'me.sensitive', replay: false };

/**
 * What a route says of itself, in one place instead of a stack of five or six decorators: its
 * rules (RouteRules) and
 * - `summary`, `description`: its @ApiOperation; `id`: what its `{id}` is (@ApiParam, e.g. `whk_…`);
 * - `data`: the schema of what its `{data}` holds and the response's description (200, or 201
 *   for CreateRoute, 202 for AcceptRoute);
 * - `list`, for a list (ApiPage: `limit`, `cursor`, 400 invalid_request): the component it lists,
 *   the response's description and, optionally, the cursor parameter's;
 * - `errors`: the error codes of its own (@ApiErrors), not those the document derives from its
 *   rules (openapi.ts routeErrors: session_required for a session-only route, cross_site_request
 *   for one that takes the dashboard cookie, …); `errorWhen`: the route's own words for when it
 *   answers a code (@ApiErrorWhen), e.g. a permission_denied beyond its permission.
 */
export interface RouteSpec extends RouteRules {
  summary: string;
  description?: string;
  data?: [SchemaObject | ReferenceObject, string];
  list?: [ReferenceObject, string, string?];
  errors?: ErrorCode[];
  errorWhen?: Partial<Record<ErrorCode, string>>;
  id?: string;
}

type Answer = typeof ApiOkResponse;

function described(spec: RouteSpec, answer: Answer): MethodDecorator[] {
  const { summary, description, id, data, list, errors, errorWhen } = spec;
  return [
    ApiOperation(description === undefined ? { summary } : { summary, description }),
    ...(id === undefined ? [] : [ApiParam({ name: 'id', description: id })]),
    ...(data ? [answer({ description: data[1], schema: dataOf(data[0]) })] : []),
    ...(list ? [ApiPage(...list)] : []),
    ...ruled(spec), // before the route's own errors: a step-up's step_up_required is listed first
    ...(errors?.length ? [ApiErrors(...errors)] : []),
    ...(Object.entries(errorWhen ?? {}) as [ErrorCode, string][]).map(([code, when]) => ApiErrorWhen(code, when)),
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

/** A POST whose work goes on after the answer: 202 `{data}`. */
export const AcceptRoute = (path: string | undefined, spec: RouteSpec) => applyDecorators(...described(spec, ApiAcceptedResponse), HttpCode(202), Post(path));

/** A signed-in person's sensitive change (SENSITIVE_ACCOUNT) acting like ActionRoute: 200 `{data}`. */
export const SensitiveAccountAction = (path: string, spec: RouteSpec) => ActionRoute(path, { ...spec, ...SENSITIVE_ACCOUNT });

/** A DELETE: 200 `{data}`. */
export const DeleteRoute = (path: string | undefined, spec: RouteSpec) => applyDecorators(...described(spec, ApiOkResponse), Delete(path));
