import { accessSync, constants, readdirSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe } from 'vitest';

/**
 * Where the page tests find a browser (issue 13): the way people have one, not only Debian's
 * /usr/bin/chromium. In order: CHROMIUM_PATH; chromium, chromium-browser, google-chrome(-stable)
 * or chrome on PATH; Chrome or Chromium installed on macOS; a browser Playwright downloaded
 * (PLAYWRIGHT_BROWSERS_PATH, else its cache folder).
 */
export interface BrowserSearch {
  env: Record<string, string | undefined>;
  platform: NodeJS.Platform;
  home: string;
}

const ON_PATH = ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable', 'chrome'];
const MAC_APPS = ['Google Chrome.app/Contents/MacOS/Google Chrome', 'Chromium.app/Contents/MacOS/Chromium', 'Google Chrome for Testing.app/Contents/MacOS/Google Chrome for Testing'];
// Inside a Playwright download (chromium-<rev>/<platform dir>/...), old layouts and new.
const PLAYWRIGHT_EXECUTABLES = ['chrome', 'chrome-headless-shell', 'headless_shell', ...MAC_APPS, 'Chromium.app/Contents/MacOS/Chromium'];

const isExecutable = (file: string): boolean => {
  try {
    accessSync(file, constants.X_OK);
    return statSync(file).isFile();
  } catch {
    return false;
  }
};

const list = (dir: string): string[] => {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
};

function playwrightCache({ env, platform, home }: BrowserSearch): string {
  if (env.PLAYWRIGHT_BROWSERS_PATH && env.PLAYWRIGHT_BROWSERS_PATH !== '0') return env.PLAYWRIGHT_BROWSERS_PATH;
  if (platform === 'darwin') return path.join(home, 'Library/Caches/ms-playwright');
  return path.join(env.XDG_CACHE_HOME || path.join(home, '.cache'), 'ms-playwright');
}

/** Every place looked at, in order (the first executable one is used). */
export function browserCandidates(search: BrowserSearch): string[] {
  const { env, platform, home } = search;
  const candidates: string[] = [];
  if (env.CHROMIUM_PATH) candidates.push(env.CHROMIUM_PATH);
  for (const dir of (env.PATH ?? '').split(path.delimiter).filter(Boolean)) for (const name of ON_PATH) candidates.push(path.join(dir, name));
  if (platform === 'darwin') for (const apps of ['/Applications', path.join(home, 'Applications')]) for (const app of MAC_APPS) candidates.push(path.join(apps, app));
  const cache = playwrightCache(search);
  const revision = (name: string) => Number(/-(\d+)$/.exec(name)?.[1] ?? 0);
  const downloads = list(cache).filter((name) => /^chromium(_headless_shell)?-\d+$/.test(name)).sort((a, b) => revision(b) - revision(a));
  for (const download of downloads) {
    for (const sub of list(path.join(cache, download))) for (const exe of PLAYWRIGHT_EXECUTABLES) candidates.push(path.join(cache, download, sub, exe));
  }
  return candidates;
}

/** The first browser found, or null. */
export function findBrowser(search: BrowserSearch): string | null {
  return browserCandidates(search).find(isExecutable) ?? null;
}

const SEARCH: BrowserSearch = { env: process.env, platform: process.platform, home: os.homedir() };

/** Set by .ci/run: a run without the browser tests is then a failure, not a skip. */
export const browserRequired = (env = SEARCH.env): boolean => env.SVC_TEST_REQUIRE_BROWSER === '1';

const HOW = 'install Chromium or Chrome, or set CHROMIUM_PATH=/path/to/chrome';

/** The one line a run without a browser prints. */
export const NO_BROWSER = `Browser tests skipped: no Chromium or Chrome found. To run them, ${HOW}.`;

/** The browser the page tests launch. Throws when none is found (they are skipped before that unless required). */
export function browserPath(search = SEARCH): string {
  const found = findBrowser(search);
  if (found) return found;
  const why = browserRequired(search.env) ? 'SVC_TEST_REQUIRE_BROWSER=1 needs the browser tests, but' : 'For the browser tests,';
  throw new Error(`${why} no Chromium or Chrome was found (CHROMIUM_PATH, PATH, the macOS applications, Playwright's cache): ${HOW}.`);
}

/** describe() for tests that drive a real browser: with none installed, skipped with one line saying how to run them. */
export function describeWithBrowser(name: string, fn: () => void): void {
  if (findBrowser(SEARCH) || browserRequired()) {
    describe(name, fn);
    return;
  }
  console.warn(NO_BROWSER);
  describe.skip(name, fn);
}
