import Ajv, { ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';

/**
 * Contract checks of every response the tests receive (docs/decisions/0015-openapi-contract.md):
 * test/support/contract-setup.ts wraps global fetch; each answer from
 * http://127.0.0.1:<port>/api/v1/... is checked here against the OpenAPI document that same
 * server serves (fetched and compiled once per server), for its route, method and status:
 *
 * - the route (path template and method) and the status must be documented;
 * - the body must match the response's schema (Ajv, formats checked; the resource schemas are
 *   closed, so a field the document does not name fails too); a response documented without
 *   content must be empty;
 * - an error's `code` must be one the response lists in `x-error-codes`.
 *
 * A path no route serves may only answer an error envelope (404 not_found, or the platform's
 * earlier refusals such as 403 edge_forbidden), or an empty 405 where the path exists with
 * other methods: the document cannot list paths that do not exist.
 */

const PREFIX = '/api/v1';
const COMPONENTS_ID = 'https://contract.test/components.json';
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'options', 'head'];

type Json = any;

interface Route {
  template: string;
  pattern: RegExp;
  /** Literal segments: more of them wins when two templates match (as Fastify prefers static routes). */
  literals: number;
  operations: Record<string, Json>;
}

export interface Exchange {
  method: string;
  url: string;
  status: number;
  contentType: string | null;
  body: string;
}

/** One server's document, compiled. */
export class Contract {
  private readonly ajv: Ajv;
  private readonly routes: Route[];
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(readonly document: Json) {
    this.ajv = new Ajv({ strict: false, allErrors: true, validateFormats: true });
    addFormats(this.ajv);
    this.ajv.addSchema({ $id: COMPONENTS_ID, definitions: absolute(document.components?.schemas ?? {}) });
    this.routes = Object.entries(document.paths as Record<string, Json>)
      .map(([template, item]) => {
        const segments = template.split('/').filter(Boolean);
        const pattern = new RegExp(`^/${segments.map((s) => (/^\{[^}]+\}$/.test(s) ? '[^/]+' : escape(s))).join('/')}$`);
        const operations = Object.fromEntries(Object.entries(item as Json).filter(([m]) => METHODS.includes(m)));
        return { template, pattern, literals: segments.filter((s) => !s.startsWith('{')).length, operations };
      })
      .sort((a, b) => b.literals - a.literals);
  }

  /** True when some documented route has this path (any method). */
  knows(path: string): boolean {
    return this.routes.some((r) => r.pattern.test(path));
  }

  /** The problems of one answer; none when it keeps the contract. */
  check(exchange: Exchange): string[] {
    const url = new URL(exchange.url);
    const path = url.pathname.slice(PREFIX.length) || '/';
    const method = exchange.method.toLowerCase();
    const candidates = this.routes.filter((r) => r.pattern.test(path));
    const route = candidates.find((r) => r.operations[method === 'head' ? 'get' : method]);
    if (!route) return this.unrouted(exchange, candidates.length > 0);

    const operation = route.operations[method === 'head' ? 'get' : method];
    const where = `${method.toUpperCase()} ${route.template} ${exchange.status}`;
    const response = resolve(this.document, operation.responses?.[String(exchange.status)] ?? operation.responses?.[`${String(exchange.status)[0]}XX`] ?? operation.responses?.default);
    if (!response) return [`${where}: status ${exchange.status} is not documented for ${method.toUpperCase()} ${route.template} (documented: ${Object.keys(operation.responses ?? {}).join(', ')})`];
    if (method === 'head') return [];

    const schema = response.content?.['application/json']?.schema;
    if (!schema) return exchange.body === '' ? [] : [`${where}: documented without a body, but one came: ${excerpt(exchange.body)}`];
    if (!/^application\/json\b/.test(exchange.contentType ?? '')) return [`${where}: documented as application/json, got content-type ${exchange.contentType ?? '(none)'}`];
    let body: Json;
    try {
      body = JSON.parse(exchange.body);
    } catch {
      return [`${where}: the body is not JSON: ${excerpt(exchange.body)}`];
    }
    const problems = this.validate(`${where}`, schema, body);
    const codes: string[] | undefined = response['x-error-codes'];
    if (codes && body?.error?.code !== undefined && !codes.includes(body.error.code)) {
      problems.push(`${where}: error code ${body.error.code} is not among the documented ones (${codes.join(', ')})`);
    }
    return problems;
  }

  private unrouted(exchange: Exchange, pathKnown: boolean): string[] {
    const where = `${exchange.method.toUpperCase()} ${new URL(exchange.url).pathname} ${exchange.status}`;
    if (exchange.status === 405 && pathKnown) return exchange.body === '' ? [] : [`${where}: a 405 is empty, got ${excerpt(exchange.body)}`];
    if (exchange.status < 400) return [`${where}: no documented route answers ${exchange.method.toUpperCase()} on this path, yet it succeeded`];
    let body: Json;
    try {
      body = JSON.parse(exchange.body);
    } catch {
      return [`${where}: an undocumented route must answer the error envelope, got ${excerpt(exchange.body)}`];
    }
    return this.validate(`${where} (no such route)`, { $ref: '#/components/schemas/Error' }, body);
  }

  private validate(where: string, schema: Json, body: Json): string[] {
    const key = JSON.stringify(schema);
    let validator = this.validators.get(key);
    if (!validator) {
      validator = this.ajv.compile(absolute(schema));
      this.validators.set(key, validator);
    }
    if (validator(body)) return [];
    return [`${where}: the body does not match the document:\n${(validator.errors ?? []).map((e) => `    ${e.instancePath || '(body)'} ${e.message}${e.params && 'additionalProperty' in e.params ? ` (${String(e.params.additionalProperty)})` : ''}`).join('\n')}\n  body: ${excerpt(JSON.stringify(body), 600)}`];
  }
}

/** A copy with every `#/components/schemas/X` reference pointing into the compiled components. */
function absolute(value: Json): Json {
  if (Array.isArray(value)) return value.map(absolute);
  if (!value || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [k, k === '$ref' && typeof v === 'string' ? v.replace('#/components/schemas/', `${COMPONENTS_ID}#/definitions/`) : absolute(v)]),
  );
}

function resolve(document: Json, value: Json): Json {
  let at = value;
  while (at && typeof at.$ref === 'string') at = at.$ref.replace(/^#\//, '').split('/').reduce((o: Json, p: string) => o?.[p], document);
  return at;
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function excerpt(text: string, max = 200): string {
  return text.length > max ? `${text.slice(0, max)}…` : text || '(empty)';
}

/** Matches the URLs the contract covers and names the server (origin) that answered. */
export function coveredUrl(url: string): { origin: string } | null {
  const match = /^(http:\/\/(?:127\.0\.0\.1|localhost):\d+)\/api\/v1(?:[/?#]|$)/.exec(url);
  return match ? { origin: match[1] } : null;
}
