import { existsSync, readFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { join, resolve } from 'node:path';
import type { ApiKeyView, Business } from '@lib/businesses';
import { BusinessService, businessesProjector, operatorActor } from '@lib/businesses';
import { DomainRefusal, type ErrorCode } from '@lib/domain';
import { AppConfig } from '@lib/core';
import { CommandRunner, adapterFor, openEventStore } from '@lib/eventstore';
import { PAUSE_TARGETS, Pause, PauseChange, PauseTarget, ServicePauses, isPauseTarget } from '@lib/operations';
import { DisableLinkCommand, DisableLinkHandler, LinkWrites, LinksReadModel } from '@lib/links';
import { ProjectionRunner } from '@lib/projections';
import { walletsProjector } from '@lib/wallets';
import { standaloneOnboarding } from '@lib/wiring';
import { table } from '../output';

export interface DisabledLink {
  id: string;
  business_id: string;
  status: 'disabled';
}

/** The business and key operations, whether done in this process or by a running server. */
export interface BusinessAdmin {
  createBusiness(input: { name: string; simulated: boolean; referral_code?: string }): Promise<{ business: Business; secret_key: string; publishable_key: string; keys: ApiKeyView[] }>;
  createKey(input: { businessId: string; type: 'secret' | 'restricted' | 'publishable'; mode: 'live' | 'test'; permissions?: string; name?: string }): Promise<{ key: ApiKeyView; secret: string }>;
  /** 404 not_found for an id that names no business. */
  listKeys(businessId: string): Promise<ApiKeyView[]>;
  revokeKey(keyId: string): Promise<ApiKeyView>;
  /** `operator`: who does it (the events' actor). */
  suspendBusiness(businessId: string, input: { reason: string; operator: string }): Promise<Business>;
  reinstateBusiness(businessId: string, input: { operator: string }): Promise<Business>;
  /** Operator pauses (issue 19 B14): what is paused now; pause or resume one target (the operator is the events' actor; `changed` false: it already was as asked). */
  listPauses(): Promise<Pause[]>;
  pause(input: { target: string; reason: string; operator: string }): Promise<PauseChange>;
  resume(input: { target: string; operator: string }): Promise<PauseChange>;
  /** The service disables a payment link (decision 0030; the operator is the events' actor). */
  disableLink(linkId: string, input: { reason: string; operator: string }): Promise<DisabledLink>;
  close(): Promise<void>;
}

/**
 * A running server that owns the embedded store publishes an admin endpoint in DATA_DIR
 * (apps/api/src/admin): go through it. Otherwise open the store here, with the businesses
 * projection running in this process so each command reads its own writes.
 */
export async function openBusinessAdmin(config: AppConfig, note: (line: string) => void = () => undefined): Promise<BusinessAdmin> {
  if (adapterFor(config) === 'embedded') {
    const dataDir = config.dataDir ?? './data';
    const endpoint = runningServer(dataDir);
    if (endpoint) return adminClient(endpoint);
    // a server started with another DATA_DIR would never see what this writes: say which store it is
    note(`store: embedded, ${resolve(dataDir)} (no server is running on it; set DATA_DIR to a running server's to act on its store)`);
  }
  const opened = await openEventStore(config);
  const runner = new ProjectionRunner(opened.store, opened.db, [businessesProjector, walletsProjector]);
  const close = async () => {
    await runner.stop();
    await opened.close();
  };
  let service: BusinessService;
  try {
    await runner.start();
    // what the server does after a business is created, here too: a simulated business gets its wallet
    const kek = { walletKek: config.walletKek, walletKekFile: config.walletKekFile, dataDir: config.dataDir, embedded: adapterFor(config) === 'embedded' };
    service = new BusinessService(opened.store, opened.db, runner, { afterCreate: standaloneOnboarding(opened.store, opened.db, runner, kek) });
  } catch (error) {
    // (no key-encryption key on a shared store, …): nothing may keep the process alive after the message
    await close();
    throw error;
  }
  const pauses = new ServicePauses(opened.store, new CommandRunner(opened.store, runner));
  const links = new DisableLinkHandler(new LinkWrites(new CommandRunner(opened.store, runner), new LinksReadModel(opened.db, config), opened.db));
  return {
    createBusiness: (input) => service.createBusiness(input),
    createKey: (input) =>
      service.createKey({
        businessId: input.businessId,
        kind: input.type,
        mode: input.mode,
        permissions: input.permissions,
        name: input.name,
      }),
    listKeys: (businessId) => service.listKeysOfBusiness(businessId),
    revokeKey: (keyId) => service.revokeKey(keyId),
    suspendBusiness: async (businessId, { reason, operator }) => service.suspendBusiness(businessId, { reason, actor: operatorActor(operator) }),
    reinstateBusiness: async (businessId, { operator }) => service.reinstateBusiness(businessId, { actor: operatorActor(operator) }),
    listPauses: () => pauses.list(),
    pause: ({ target, reason, operator }) => pauses.pause(pauseTarget(target), reason, operatorActor(operator)),
    resume: ({ target, operator }) => pauses.resume(pauseTarget(target), operatorActor(operator)),
    disableLink: (linkId, { reason, operator }) => links.execute(new DisableLinkCommand(linkId, reason, { actor: operatorActor(operator) })),
    close,
  };
}

function runningServer(dataDir: string): { url: string; token: string } | null {
  const file = join(dataDir, 'admin.json');
  if (!existsSync(file)) return null;
  try {
    const endpoint = JSON.parse(readFileSync(file, 'utf8')) as { url: string; token: string; pid: number };
    process.kill(endpoint.pid, 0); // throws when the server is gone (a stale file)
    return endpoint;
  } catch {
    return null;
  }
}

function adminClient(endpoint: { url: string; token: string }): BusinessAdmin {
  const call = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const response = await fetch(`${endpoint.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${endpoint.token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const payload = (await response.json()) as T & { error?: { code: ErrorCode; message: string; field?: string | null } };
    // a refusal as the store's own path throws it (the CLI prints `code: message` for both)
    if (!response.ok) throw payload.error ? new DomainRefusal(payload.error.code, payload.error.message, payload.error.field ?? null) : new Error(`admin endpoint answered ${response.status}`);
    return payload;
  };
  return {
    createBusiness: (input) => call('POST', '/businesses', input),
    createKey: (input) => call('POST', '/keys', { business_id: input.businessId, type: input.type, mode: input.mode, permissions: input.permissions, name: input.name }),
    listKeys: async (businessId) => (await call<{ data: ApiKeyView[] }>('GET', `/keys?business_id=${encodeURIComponent(businessId)}`)).data,
    revokeKey: async (keyId) => (await call<{ key: ApiKeyView }>('POST', `/keys/${encodeURIComponent(keyId)}/revoke`)).key,
    suspendBusiness: async (businessId, input) => (await call<{ business: Business }>('POST', `/businesses/${encodeURIComponent(businessId)}/suspend`, input)).business,
    reinstateBusiness: async (businessId, input) => (await call<{ business: Business }>('POST', `/businesses/${encodeURIComponent(businessId)}/reinstate`, input)).business,
    listPauses: async () => (await call<{ data: Pause[] }>('GET', '/pauses')).data,
    pause: async (input) => pauseChange(await call<{ data: Pause[]; changed?: boolean }>('POST', '/pauses', input)),
    resume: async (input) => pauseChange(await call<{ data: Pause[]; changed?: boolean }>('POST', '/pauses/resume', input)),
    disableLink: async (linkId, input) => (await call<{ link: DisabledLink }>('POST', `/links/${encodeURIComponent(linkId)}/disable`, input)).link,
    close: async () => undefined,
  };
}

/** The admin endpoint's answer to a pause or resume (a server older than `changed` is taken to have changed it, as it then said). */
function pauseChange(answer: { data: Pause[]; changed?: boolean }): PauseChange {
  return { pauses: answer.data, changed: answer.changed !== false };
}

type Out = (line: string) => void;

/** A new key as POST /api-keys answers it (the API's NewApiKey): the key, with its whole secret in `secret`. */
export function newApiKey(key: ApiKeyView, secret: string): ApiKeyView & { secret: string } {
  return { ...key, secret };
}

/** `--json`: `{business, keys}`, each key as POST /api-keys answers one (NewApiKey: the key with its `secret`), the secret key first. */
export async function createBusiness(admin: BusinessAdmin, name: string, simulated: boolean, json: boolean, out: Out, referralCode?: string): Promise<void> {
  const created = await admin.createBusiness({ name, simulated, ...(referralCode === undefined ? {} : { referral_code: referralCode }) });
  const keyOf = (type: ApiKeyView['type']) => {
    const key = created.keys.find((k) => k.type === type);
    if (!key) throw new Error(`the new business ${created.business.id} has no ${type} key`);
    return key;
  };
  const result = { business: created.business, keys: [newApiKey(keyOf('secret'), created.secret_key), newApiKey(keyOf('publishable'), created.publishable_key)] };
  if (json) return out(JSON.stringify(result));
  out(`created ${simulated ? 'simulated' : 'live'} business ${created.business.id} (${created.business.name})`);
  out(`secret key:      ${created.secret_key}`);
  out(`publishable key: ${created.publishable_key}`);
  out('These keys are shown once: store them now.');
}

export async function createKey(
  admin: BusinessAdmin,
  options: { business: string; test?: boolean; restricted?: string; publishable?: boolean; name?: string; json?: boolean },
  out: Out,
): Promise<void> {
  const type = options.restricted ? 'restricted' : options.publishable ? 'publishable' : 'secret';
  const mode = options.test ? 'test' : 'live';
  const created = await admin.createKey({ businessId: options.business, type, mode, permissions: options.restricted, name: options.name }).catch((error: unknown) => {
    // the API's field is this command's flag: say which flag to add
    if (error instanceof DomainRefusal && error.field === 'mode' && mode === 'live') throw new DomainRefusal(error.code, 'A simulated business has test keys only: add --test.', 'mode');
    throw error;
  });
  if (options.json) return out(JSON.stringify(newApiKey(created.key, created.secret)));
  out(`created ${created.key.mode} ${created.key.type} key ${created.key.id} for ${created.key.business_id}`);
  out(`key: ${created.secret}`);
  out('It is shown once: store it now.');
}

export async function listKeys(admin: BusinessAdmin, businessId: string, json: boolean, out: Out): Promise<void> {
  const keys = await admin.listKeys(businessId);
  if (json) return keys.forEach((k) => out(JSON.stringify(k)));
  out(
    table(
      ['id', 'type', 'mode', 'key', 'name', 'permissions', 'created_at', 'revoked_at'],
      keys.map((k) => [k.id, k.type, k.mode, k.redacted_key, k.name ?? '-', k.permissions ? JSON.stringify(k.permissions) : '-', k.created_at, k.revoked_at ?? '-']),
    ),
  );
}

export async function revokeKey(admin: BusinessAdmin, keyId: string, json: boolean, out: Out): Promise<void> {
  const key = await admin.revokeKey(keyId);
  out(json ? JSON.stringify(key) : `revoked ${key.id} (${key.redacted_key}) at ${key.revoked_at}`);
}

export async function suspendBusiness(admin: BusinessAdmin, businessId: string, options: { reason: string; operator: string; json?: boolean }, out: Out): Promise<void> {
  const business = await admin.suspendBusiness(businessId, { reason: options.reason, operator: options.operator });
  out(options.json ? JSON.stringify(business) : `suspended ${business.id} (${business.name}) at ${business.suspended_at}`);
}

export async function reinstateBusiness(admin: BusinessAdmin, businessId: string, options: { operator: string; json?: boolean }, out: Out): Promise<void> {
  const business = await admin.reinstateBusiness(businessId, { operator: options.operator });
  out(options.json ? JSON.stringify(business) : `reinstated ${business.id} (${business.name})`);
}

/** Who runs the CLI, the default operator of suspensions: the OS user name (USER when it cannot be read), else "operator". */
export function defaultOperator(): string {
  try {
    return userInfo().username || 'operator';
  } catch {
    return process.env.USER || process.env.USERNAME || 'operator';
  }
}

/** A pause target as typed by the operator, or an error naming the ones there are. */
export function pauseTarget(text: string): PauseTarget {
  if (!isPauseTarget(text)) throw new Error(`nothing called ${JSON.stringify(text)} can be paused; one of: ${PAUSE_TARGETS.join(', ')}`);
  return text;
}

export async function listPauses(admin: BusinessAdmin, options: { json?: boolean }, out: Out): Promise<void> {
  const pauses = await admin.listPauses();
  if (options.json) return pauses.forEach((p) => out(JSON.stringify(p))); // JSON lines, as every list of the CLI
  if (pauses.length === 0) return out('nothing is paused');
  out(table(['target', 'since', 'by', 'reason'], pauses.map((p) => [p.target, p.since, p.by ?? '', p.reason])));
}

/**
 * Pausing what is paused changes nothing (the pause keeps its reason): said on stderr with exit 2,
 * as the CLI answers every action that finds nothing to do (a second suspension, reinstating an
 * active business, revoking a revoked key).
 */
export async function setPause(admin: BusinessAdmin, target: string, options: { reason: string; operator: string; json?: boolean }, out: Out): Promise<void> {
  const { changed, pauses } = await admin.pause({ target: pauseTarget(target), reason: options.reason, operator: options.operator });
  if (!changed) {
    const held = pauses.find((p) => p.target === target);
    const since = held ? ` since ${held.since}${held.by ? ` by ${held.by}` : ''}, reason ${JSON.stringify(held.reason)}` : '';
    throw new NothingChanged(`${target} is already paused${since}: nothing changed ("pauses clear ${target}" first to pause it for another reason)`);
  }
  out(options.json ? JSON.stringify(pauses) : `paused ${target}: its actions answer 503 temporarily_unavailable until "pauses clear ${target}"`);
}

/** Clearing what is not paused changes nothing: said on stderr with exit 2 (see setPause). */
export async function clearPause(admin: BusinessAdmin, target: string, options: { operator: string; json?: boolean }, out: Out): Promise<void> {
  const { changed, pauses } = await admin.resume({ target: pauseTarget(target), operator: options.operator });
  if (!changed) throw new NothingChanged(`${target} is not paused: nothing was resumed`);
  out(options.json ? JSON.stringify(pauses) : `resumed ${target}`);
}

/** An operator's action that found nothing to do: main prints the message and exits 2, like a refused one. */
export class NothingChanged extends Error {}

/** `links disable <lnk_id> --reason …` (decision 0030): customers can no longer pay on it, the business can no longer restore it. */
export async function disableLink(admin: BusinessAdmin, linkId: string, options: { reason: string; operator: string; json?: boolean }, out: Out): Promise<void> {
  const link = await admin.disableLink(linkId, { reason: options.reason, operator: options.operator });
  out(options.json ? JSON.stringify(link) : `disabled ${link.id} of ${link.business_id}`);
}
