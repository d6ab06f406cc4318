import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Writes a benchmark's raw results to bench/results/<name>-<YYYY-MM-DD>.json (kept out of git). */
export function saveResults(name: string, data: unknown): void {
  const dir = join(__dirname, '..', 'results');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${name}-${new Date().toISOString().slice(0, 10)}.json`), JSON.stringify(data, null, 2));
}

/** A run with errors is not a measurement: prints the first errors of each store and ends with status 1. */
export function failOnErrors(results: readonly { store: string; errors: readonly string[] }[]): void {
  if (!results.some((r) => r.errors.length > 0)) return;
  for (const r of results) for (const e of r.errors.slice(0, 5)) console.error(`${r.store}: ${e}`);
  process.exitCode = 1;
}

/** Runs a benchmark's main; an exception ends the process with status 1. */
export function runBench(main: () => Promise<void>): void {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
