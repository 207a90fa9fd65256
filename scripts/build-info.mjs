#!/usr/bin/env node
// Run by `npm run build` (and so by `npm pack`): records the commit being built in
// dist/build-info.json, so an installed package, which has no .git, still names its commit in
// `svc --version`. Outside a git checkout the commit is null and svc says `unknown`.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
let commit = null;
try {
  commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, stdio: ['ignore', 'pipe', 'ignore'], encoding: 'utf8' }).trim() || null;
} catch {
  // not a git checkout, or git is not installed
}
mkdirSync(path.join(root, 'dist'), { recursive: true });
writeFileSync(path.join(root, 'dist', 'build-info.json'), JSON.stringify({ commit }) + '\n');
