import { readFileSync } from 'node:fs';

// package.json sits two levels above both src/version.ts and dist/src/version.js.
const pkgUrl = new URL(import.meta.url.includes('/dist/') ? '../../package.json' : '../package.json', import.meta.url);

export const VERSION: string = (JSON.parse(readFileSync(pkgUrl, 'utf8')) as { version: string }).version;
