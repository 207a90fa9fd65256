#!/usr/bin/env node
// Switches a checkout of a headless-blog template written for SEObot's client to
// svc-content-client in a scratch copy (the one import line per page, the dependency) and
// typechecks its pages against this repository's client, under moduleResolution "node" (what
// `next build` writes) and "bundler". The template itself is not kept here: pass its directory,
// e.g. a clone of https://github.com/MarsX-dev/seobot-nextjs-blog. Installs the template's own
// dependencies from the npm registry into the copy (no build of Next.js).
//
//   node scripts/check-blog-template.mjs ../seobot-nextjs-blog
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, readdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const source = process.argv[2];
if (!source) {
  console.error('usage: node scripts/check-blog-template.mjs <template directory>');
  process.exit(2);
}
const site = mkdtempSync(path.join(tmpdir(), 'svc-template-'));
cpSync(source, site, { recursive: true, filter: (p) => !/[\\/](node_modules|\.git|\.next)$/.test(p) });

// The switch: one import line per page, and the dependency.
const IMPORT = /from\s+(['"])seobot\1/g;
let lines = 0;
const walk = (dir) =>
  readdirSync(dir).flatMap((name) => {
    const p = path.join(dir, name);
    return statSync(p).isDirectory() ? walk(p) : /\.(tsx?|jsx?)$/.test(name) ? [p] : [];
  });
for (const file of walk(site)) {
  const text = readFileSync(file, 'utf8');
  const switched = text.replace(IMPORT, (_, q) => `from ${q}svc-content-client${q}`);
  if (switched === text) continue;
  lines += (text.match(IMPORT) ?? []).length;
  writeFileSync(file, switched);
  console.log(`switched ${path.relative(site, file)}`);
}
const pkg = JSON.parse(readFileSync(path.join(site, 'package.json'), 'utf8'));
delete pkg.dependencies?.seobot;
writeFileSync(path.join(site, 'package.json'), JSON.stringify(pkg, null, 2));

execFileSync('npm', ['install', '--no-audit', '--no-fund', '--ignore-scripts', '--omit=optional'], { cwd: site, stdio: 'inherit' });
execFileSync(process.execPath, [path.join(root, 'packages/content-client/build.mjs')], { stdio: 'inherit' });
symlinkSync(path.join(root, 'packages/content-client'), path.join(site, 'node_modules/svc-content-client'), 'dir');
writeFileSync(path.join(site, 'next-env.d.ts'), '/// <reference types="next" />\n/// <reference types="next/image-types/global" />\n');

let failed = false;
for (const resolution of ['node', 'bundler']) {
  const config = path.join(site, `tsconfig.svc-${resolution}.json`);
  writeFileSync(config, JSON.stringify({ extends: './tsconfig.json', compilerOptions: { moduleResolution: resolution, module: 'esnext', incremental: false, noEmit: true, plugins: [] } }));
  try {
    execFileSync(path.join(site, 'node_modules/.bin/tsc'), ['-p', config], { cwd: site, stdio: 'inherit' });
    console.log(`typecheck with moduleResolution ${resolution}: ok`);
  } catch {
    console.error(`typecheck with moduleResolution ${resolution}: FAILED`);
    failed = true;
  }
}
console.log(`${lines} import line(s) switched; copy left in ${site}`);
process.exit(failed ? 1 : 0);
