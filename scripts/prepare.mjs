#!/usr/bin/env node
// npm runs `prepare` (never `prepack`) in the clone it makes of a git URL, and packs that clone:
// this is what puts dist/ into a package installed from git. `npm install -g git+URL` prepares the
// clone with a global install, which gives the clone none of its devDependencies: then TypeScript
// is installed into the clone first, without install scripts (the build needs no sqlite3 binary).
// In a clone after `npm ci` it only builds when a source changed (build-if-stale.mjs).
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(path.join(root, 'package.json'));
try {
  require.resolve('typescript/bin/tsc');
} catch {
  const npm = process.env.npm_execpath;
  if (!npm) throw new Error('svc: TypeScript is not installed and npm is not the one running this script: run npm ci first');
  console.error('svc: installing the build tools (devDependencies, without install scripts) to build this clone...');
  // The global install's settings reach this script through npm_config_*: this install is local to
  // the clone, and npm refuses allow-scripts in a local install (it runs no scripts anyway).
  const env = { ...process.env };
  delete env.npm_config_allow_scripts;
  execFileSync(process.execPath, [npm, 'install', '--global=false', '--prefix', root, '--include=dev', '--ignore-scripts', '--install-links=false', '--no-save', '--no-audit', '--no-fund'], { cwd: root, stdio: 'inherit', env });
}
execFileSync(process.execPath, [path.join(root, 'scripts', 'build-if-stale.mjs')], { cwd: root, stdio: 'inherit' });
