import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// The package root sits two levels above both src/version.ts and dist/src/version.js.
const root = new URL(import.meta.url.includes('/dist/') ? '../../' : '../', import.meta.url);

export const VERSION: string = (JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as { version: string }).version;

/**
 * The commit svc was built from: the one `npm run build` recorded in dist/build-info.json (an
 * installed package has no .git), else the checkout's HEAD when svc runs from a clone, else
 * `unknown`. Read only when asked (`svc --version`): it may start git.
 */
export function buildCommit(): string {
  // A clone's HEAD is the truth there, even when dist/ was built from an earlier commit.
  if (existsSync(fileURLToPath(new URL('.git', root)))) {
    try {
      const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: fileURLToPath(root), stdio: ['ignore', 'pipe', 'ignore'], encoding: 'utf8' }).trim();
      if (head) return head;
    } catch {
      // git missing: fall back to what the build recorded
    }
  }
  try {
    const info = JSON.parse(readFileSync(new URL('dist/build-info.json', root), 'utf8')) as { commit?: unknown };
    if (typeof info.commit === 'string' && info.commit) return info.commit;
  } catch {
    // no build info (svc run from sources by a test)
  }
  return 'unknown';
}

/** What `svc --version` prints: `svc 0.2.0 (d1806e0)`. */
export const versionLine = () => `svc ${VERSION} (${buildCommit()})`;
