import type { ChallengeForm } from '@lib/challenge';
import { CreateRoute, type RouteRules, type RouteSpec, publicForm } from '../platform/route-presets';
import { SESSION_SCHEMA } from './schemas';

/**
 * A route that signs a person in (a password, its second step, a passkey): a public form
 * (publicForm) on the `rateLimit` rule, behind the bot challenge of the `challenge` form when
 * given, answering 201 with the new Session (its cookies set). After the route's own `errors`,
 * 403 password_reset_required: no session starts by any method while the person's password must
 * be reset (libs/accounts SessionStarter; decision 0038).
 */
export function SignInRoute(path: string | undefined, spec: Omit<RouteSpec, keyof RouteRules | 'data'> & { rateLimit: string; challenge?: ChallengeForm }) {
  const { rateLimit, challenge, errors = [], ...own } = spec;
  return CreateRoute(path, { ...own, data: [SESSION_SCHEMA, 'The new session.'], errors: [...errors, 'password_reset_required'], ...publicForm(rateLimit, challenge) });
}
