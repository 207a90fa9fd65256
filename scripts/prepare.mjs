#!/usr/bin/env node
// npm runs `prepare` where the package's source is installed: `npm ci` in a clone, and the
// temporary clone npm makes for `npm install -g git+...` before it packs it (dist/ is not in git,
// so without this the package npm installs has no compiled code). Builds only when there is no
// build yet and TypeScript is there to make one: a package made by `npm pack` already holds
// dist/ and no TypeScript.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
if (!existsSync(path.join(root, 'dist', 'src', 'main.js'))) {
  let tsc;
  try {
    tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  } catch {
    console.error('svc: no dist/ and no TypeScript to build it (npm install with dev dependencies, then npm run build)');
    process.exit(0);
  }
  console.error('Building svc (no dist/ yet)...');
  execFileSync(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: root, stdio: 'inherit' });
  execFileSync(process.execPath, [path.join(root, 'scripts', 'build-info.mjs')], { cwd: root, stdio: 'inherit' });
}
