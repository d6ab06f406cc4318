#!/usr/bin/env node
// Builds dist/ (one `nest build` compiles every app and lib) when a source file is newer
// than the last build, so `npm start` and `npm run cli` always run the current code.
const { execFileSync } = require('node:child_process');
const { existsSync, readdirSync, statSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');

const root = join(__dirname, '..');
const stamp = join(root, 'dist', '.build-stamp');

function newest(dir) {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) latest = Math.max(latest, newest(path));
    else if (entry.name.endsWith('.ts') || entry.name.endsWith('.json')) latest = Math.max(latest, statSync(path).mtimeMs);
  }
  return latest;
}

const sources = Math.max(newest(join(root, 'apps')), newest(join(root, 'libs')), ...['tsconfig.json', 'tsconfig.build.json', 'nest-cli.json', 'package.json'].map((f) => statSync(join(root, f)).mtimeMs));
if (!existsSync(stamp) || statSync(stamp).mtimeMs < sources) {
  process.stderr.write('building dist/ ...\n');
  execFileSync(process.execPath, [join(root, 'node_modules', '@nestjs', 'cli', 'bin', 'nest.js'), 'build', 'api'], { cwd: root, stdio: 'inherit' });
  writeFileSync(stamp, new Date().toISOString());
}
