import type { FastifyInstance } from 'fastify';
import FindMyWay from 'find-my-way';

declare module 'fastify' {
  interface FastifyInstance {
    routeTable: RouteTable;
  }
}

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;
type Method = (typeof METHODS)[number];

/**
 * Every route the server registers, so a request that matched none can be told apart:
 * path unknown (404) or path known for other methods (405). Attach before routes exist.
 */
export class RouteTable {
  private readonly router = FindMyWay({ ignoreTrailingSlash: false });
  private readonly registered: { method: string; url: string }[] = [];

  attach(fastify: FastifyInstance): void {
    fastify.decorate('routeTable', { getter: () => this as RouteTable });
    fastify.addHook('onRoute', (route) => {
      const methods = Array.isArray(route.method) ? route.method : [route.method];
      for (const method of methods) {
        if (!(METHODS as readonly string[]).includes(method)) continue;
        this.router.on(method as Method, route.url, () => undefined);
        this.registered.push({ method, url: route.url });
      }
    });
  }

  /** Every registered route (method and URL pattern), in registration order. */
  list(): { method: string; url: string }[] {
    return [...this.registered];
  }

  /**
   * Methods the path answers to (empty when the path is unknown). A path with an empty segment
   * (`/payments/`, `/payments//x`) names nothing, though the router would read it as a route with
   * an empty parameter (`/payments/:id`).
   */
  allowedMethods(url: string): string[] {
    const path = url.split('?')[0];
    if (/\/(\/|$)/.test(path)) return [];
    return METHODS.filter((method) => this.router.find(method, path) !== null);
  }
}
