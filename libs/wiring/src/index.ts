/**
 * What the composition roots (apps/api, apps/worker, apps/cli) share and no capability may know:
 * the list of every capability's projectors and stream categories, and the Prometheus `Metrics` the
 * api and worker processes serve. Apps import it; no library does.
 */
export * from './projectors';
export * from './stream-categories';
export * from './onboarding';
export * from './metrics';
