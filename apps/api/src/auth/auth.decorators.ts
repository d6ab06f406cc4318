import { SetMetadata } from '@nestjs/common';
import type { Access, Resource } from '@lib/businesses';

/**
 * What a route asks of its caller (spec §5). The guard reads these; a route without any of
 * them needs a secret key (or a restricted key, which then needs an explicit permission).
 */

export const PUBLIC_ROUTE = 'auth:public';
export const PERMISSION = 'auth:permission';
export const LIVE_MODE_ACTION = 'auth:live-mode-action';
export const DASHBOARD_ONLY = 'auth:dashboard-only';

/** No credentials needed (§5.7); a key sent anyway must be valid and is made available. */
export const Public = () => SetMetadata(PUBLIC_ROUTE, true);

/** What a route asks of a restricted key: this access to the resource, or to any one of several. */
export interface RoutePermission {
  resource: Resource | readonly Resource[];
  access: Access;
  /**
   * The route's use case checks the permission itself, after validating its input, so a 400
   * comes before the 403 (GET /search, decision 0031); the guard then leaves it alone. The
   * document describes the permission as for any route.
   */
  checkedByUseCase?: boolean;
}

/**
 * Restricted keys need this access to the resource (secret keys have all); given several
 * resources, to any one of them (GET /search: a key searches the kinds it reads). On a
 * controller it applies to each of its routes.
 */
export const RequiresPermission = (resource: Resource | readonly Resource[], access: Access, options: { checkedByUseCase?: true } = {}) =>
  SetMetadata(PERMISSION, { resource, access, ...options } satisfies RoutePermission);

/** Whether a key's grants meet a route's permission (any one of its resources). */
export const permits = (permission: RoutePermission, allows: (resource: Resource, access: Access) => boolean): boolean => [permission.resource].flat().some((resource) => allows(resource, permission.access));

/** "read access to payments", "read access to payments, customers or links". */
export function describePermission(permission: RoutePermission): string {
  const resources = [permission.resource].flat();
  const named = resources.length === 1 ? resources[0] : `${resources.slice(0, -1).join(', ')} or ${resources[resources.length - 1]}`;
  return `${permission.access} access to ${named}`;
}

/**
 * A real-money or customer-facing action (§5.4): a test key on a live business gets 403
 * test_mode_unavailable. Simulated businesses take test keys everywhere.
 */
export const LiveModeAction = () => SetMetadata(LIVE_MODE_ACTION, true);

/** Dashboard sessions only (§5.5): API keys get 403 session_required. */
export const DashboardOnly = () => SetMetadata(DASHBOARD_ONLY, true);

export const ACCOUNT_ROUTE = 'auth:account-route';
export const SAME_ORIGIN = 'auth:same-origin';

/**
 * A route of the signed-in person rather than of a business (GET /me, /sessions…; decision
 * 0034): a session cookie without the Service-Business header; API keys get 403
 * session_required.
 */
export const AccountRoute = () => SetMetadata(ACCOUNT_ROUTE, true);

/**
 * A public route a browser calls to get a session (sign-up, sign-in): refused with 403
 * cross_site_request from another site, like every cookie request (no login CSRF).
 */
export const SameOriginOnly = () => SetMetadata(SAME_ORIGIN, true);
