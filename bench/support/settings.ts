/**
 * A benchmark's numeric settings from the environment: each key `NAME` of `defaults` is read from
 * `BENCH_NAME` (a number), else takes its default.
 *
 *   const { SECONDS, ROUNDS } = benchNumbers({ SECONDS: 5, ROUNDS: 3 }); // BENCH_SECONDS, BENCH_ROUNDS
 */
export function benchNumbers<T extends Record<string, number>>(defaults: T): T {
  const read = Object.entries(defaults).map(([name, fallback]) => [name, Number(process.env[`BENCH_${name}`] || fallback)]);
  return Object.fromEntries(read) as T;
}

/** The stores a benchmark runs on: BENCH_STORES (comma separated), else `fallback`. */
export function benchStores(fallback = 'embedded,postgres'): string[] {
  return (process.env.BENCH_STORES || fallback).split(',').map((s) => s.trim());
}
