// Builds dist/esm (ES modules) and dist/cjs (CommonJS), each with its .d.ts, with the TypeScript
// compiler of the repository (or of this package when installed alone). Each folder gets a
// package.json naming its module type, so Node, bundlers and every TypeScript moduleResolution
// read the files as what they are.
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const tsc = createRequire(join(here, 'package.json')).resolve('typescript/bin/tsc');
rmSync(join(here, 'dist'), { recursive: true, force: true });
for (const [config, type] of [['tsconfig.esm.json', 'module'], ['tsconfig.cjs.json', 'commonjs']]) {
  execFileSync(process.execPath, [tsc, '-p', join(here, config)], { stdio: 'inherit' });
  const out = join(here, 'dist', type === 'module' ? 'esm' : 'cjs');
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, 'package.json'), `${JSON.stringify({ type })}\n`);
}
