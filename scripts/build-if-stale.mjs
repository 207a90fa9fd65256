#!/usr/bin/env node
// `npm start` runs this first: build only when a source changed since the last build, so a start
// with a current build takes no compile (issue 13: it rebuilt every time, about 10 s). A fresh
// clone has no dist/ and builds. tsc itself is incremental (tsconfig.json), so a rebuild after a
// small change is short too.
import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// Every build writes dist/build-info.json last (`npm run build` too, so `npm pack`'s prepare after
// its prepack builds nothing again): its time is the build's.
const stamp = path.join(root, 'dist', 'build-info.json');
// What the build reads. Directories count too: deleting a file changes its folder's time.
const INPUTS = ['src', 'migrations', 'bench', 'tsconfig.json', 'package.json'];

/** The latest modification time under p (0 when it does not exist). */
function newest(p) {
  const st = statSync(p, { throwIfNoEntry: false });
  if (!st) return 0;
  let latest = st.mtimeMs;
  if (st.isDirectory()) for (const entry of readdirSync(p)) latest = Math.max(latest, newest(path.join(p, entry)));
  return latest;
}

const built = statSync(stamp, { throwIfNoEntry: false })?.mtimeMs ?? 0;
const changed = Math.max(...INPUTS.map((input) => newest(path.join(root, input))));
if (built === 0 || changed > built) {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  console.error(built === 0 ? 'Building svc (first start)...' : 'Sources changed since the last build: building svc...');
  execFileSync(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: root, stdio: 'inherit' });
  execFileSync(process.execPath, [path.join(root, 'scripts', 'build-info.mjs')], { cwd: root, stdio: 'inherit' });
}
