#!/usr/bin/env node
/**
 * Runs one test file (or any Jest path pattern) n times in a row, the way `npm test` runs it,
 * and prints each run's result and time, then a summary. Exits 1 if any run failed, keeping the
 * failed runs' output in a temp folder. For pinning down a test that fails at random:
 *
 *   npm run test:repeat -- test/webhooks/dispatcher-module.e2e.ts 20
 *   npm run test:repeat -- test/payments/http/durability.e2e.ts 10 -t "PostgreSQL"
 */
'use strict';
const { spawnSync } = require('node:child_process');
const { mkdtempSync, writeFileSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');

const [file, countText, ...jestArgs] = process.argv.slice(2);
const count = Number(countText ?? 5);
if (!file || !Number.isInteger(count) || count < 1) {
  console.error('usage: npm run test:repeat -- <test file> <n> [extra jest arguments]');
  process.exit(2);
}
const root = join(__dirname, '..');
const jest = join(root, 'node_modules', 'jest', 'bin', 'jest.js');
const args = ['--experimental-vm-modules', '--no-warnings=ExperimentalWarning', jest, '--runInBand', '--silent', '--verbose=false', ...jestArgs, file];
const logs = mkdtempSync(join(tmpdir(), 'test-repeat-'));
const results = [];
for (let run = 1; run <= count; run++) {
  const started = Date.now();
  const child = spawnSync(process.execPath, args, { cwd: root, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  const seconds = (Date.now() - started) / 1000;
  const output = `${child.stdout ?? ''}${child.stderr ?? ''}`;
  const summary = /Tests:\s+(.*)/.exec(output)?.[1] ?? `no Jest summary (exit ${child.status}, signal ${child.signal})`;
  const ok = child.status === 0;
  let log = '';
  if (!ok) {
    log = join(logs, `run-${run}.log`);
    writeFileSync(log, output);
  }
  results.push({ ok, seconds });
  console.log(`run ${String(run).padStart(String(count).length)}/${count}  ${ok ? 'pass' : 'FAIL'}  ${seconds.toFixed(1).padStart(6)} s  ${summary}${log ? `  (output: ${log})` : ''}`);
}
const failed = results.filter((r) => !r.ok).length;
const times = results.map((r) => r.seconds).sort((a, b) => a - b);
console.log(`\n${file}: ${count - failed} of ${count} runs passed; time min ${times[0].toFixed(1)} s, median ${times[Math.floor(times.length / 2)].toFixed(1)} s, max ${times[times.length - 1].toFixed(1)} s`);
process.exit(failed === 0 ? 0 : 1);
