import { DomainError } from './domain-error';

/** What a restricted key can be given access to. The order is the order keys are printed in. */
export const RESOURCES = ['payments', 'checkouts', 'customers', 'links', 'webhooks', 'events', 'wallet', 'business'] as const;
export type Resource = (typeof RESOURCES)[number];

/** `write` implies `read`. */
export const ACCESS_LEVELS = ['read', 'write'] as const;
export type Access = (typeof ACCESS_LEVELS)[number];

/** A restricted key's grants: a resource left out is not accessible at all. */
export type Permissions = Partial<Record<Resource, Access>>;

export function isResource(value: unknown): value is Resource {
  return typeof value === 'string' && (RESOURCES as readonly string[]).includes(value);
}

export function isAccess(value: unknown): value is Access {
  return typeof value === 'string' && (ACCESS_LEVELS as readonly string[]).includes(value);
}

const invalid = (message: string) => new DomainError('invalid_request', message, 'permissions');
const known = `known resources: ${RESOURCES.join(', ')}; access: read or write`;

/**
 * Parses the written form `payments:write,webhooks:read` (spaces around items are ignored).
 * A resource named twice keeps the stronger access. Throws a DomainError (invalid_request,
 * field `permissions`) naming the item at fault on an unknown resource or access, or an item
 * that is not `resource:access`. The empty string means no permissions.
 */
export function parsePermissions(text: string): Permissions {
  const parsed: Permissions = {};
  if (text.trim() === '') return parsed;
  for (const raw of text.split(',')) {
    const item = raw.trim();
    const parts = item.split(':').map((p) => p.trim());
    if (parts.length !== 2 || parts[0] === '' || parts[1] === '') {
      throw invalid(`Permission ${JSON.stringify(item)} is not of the form resource:access (for example payments:write); ${known}.`);
    }
    const [resource, access] = parts;
    if (!isResource(resource)) throw invalid(`Unknown resource ${JSON.stringify(resource)} in permission ${JSON.stringify(item)}; ${known}.`);
    if (!isAccess(access)) throw invalid(`Unknown access ${JSON.stringify(access)} in permission ${JSON.stringify(item)}; access is read or write.`);
    if (parsed[resource] !== 'write') parsed[resource] = access;
  }
  return normalizePermissions(parsed);
}

/**
 * Checks a permissions object from outside (a JSON body, a stored event) and returns it with
 * its resources in the order of RESOURCES, so equal grants are stored and compared equal.
 */
export function normalizePermissions(value: unknown): Permissions {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw invalid(`Permissions must be an object of resource to access; ${known}.`);
  const entries = Object.entries(value as Record<string, unknown>);
  for (const [resource, access] of entries) {
    if (!isResource(resource)) throw invalid(`Unknown resource ${JSON.stringify(resource)}; ${known}.`);
    if (!isAccess(access)) throw invalid(`Unknown access ${JSON.stringify(access)} for ${resource}; access is read or write.`);
  }
  const given = value as Permissions;
  const out: Permissions = {};
  for (const resource of RESOURCES) if (given[resource] !== undefined) out[resource] = given[resource];
  return out;
}

/** The written form of grants, `payments:write,webhooks:read` (parsePermissions reads it back). */
export function formatPermissions(permissions: Permissions): string {
  return RESOURCES.filter((r) => permissions[r] !== undefined)
    .map((r) => `${r}:${permissions[r]}`)
    .join(',');
}

/** Whether grants allow an access: `write` implies `read`. */
export function grants(permissions: Permissions | null | undefined, resource: Resource, access: Access): boolean {
  const granted = permissions?.[resource];
  return granted === 'write' || (granted === 'read' && access === 'read');
}

/**
 * The grants of `after` that `before` does not already allow: a resource added, or raised from
 * read to write (decision 0039: giving a key more access needs a step-up). Empty when `after`
 * only keeps or narrows; unknown grants (null or undefined) allow nothing.
 */
export function addedGrants(before: Permissions | null | undefined, after: Permissions): Permissions {
  const added: Permissions = {};
  for (const resource of RESOURCES) {
    const access = after[resource];
    if (access !== undefined && !grants(before, resource, access)) added[resource] = access;
  }
  return added;
}

/** Every permission: what a secret key has. */
export const ALL_PERMISSIONS: Readonly<Permissions> = Object.freeze(Object.fromEntries(RESOURCES.map((r) => [r, 'write'])) as Permissions);

/**
 * What a key of a kind may do: a secret key everything, a publishable key nothing (it only
 * names a business on public routes), a restricted key exactly its grants.
 */
export function keyAllows(key: { type: 'secret' | 'publishable' | 'restricted'; permissions: Permissions | null }, resource: Resource, access: Access): boolean {
  if (key.type === 'secret') return true;
  if (key.type === 'publishable') return false;
  return grants(key.permissions, resource, access);
}
