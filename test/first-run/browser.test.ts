import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { NO_BROWSER, browserPath, findBrowser } from '../helpers/browser.js';
import { tempDir } from '../helpers/env.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** A fake executable at `file` (the lookup only needs it to exist and be executable). */
function executable(file: string): string {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, '#!/bin/sh\nexit 0\n');
  chmodSync(file, 0o755);
  return file;
}

describe('first run (issue 13): finding a browser for the page tests', () => {
  it('looks where people have one: CHROMIUM_PATH, PATH, macOS applications, Playwright downloads', () => {
    const home = tempDir();
    const nowhere = { env: { PATH: path.join(home, 'bin'), CHROMIUM_PATH: path.join(home, 'nowhere/chrome') }, platform: 'linux' as const, home };
    expect(findBrowser(nowhere)).toBeNull();
    expect(() => browserPath(nowhere)).toThrow('For the browser tests, no Chromium or Chrome was found');
    expect(() => browserPath({ ...nowhere, env: { ...nowhere.env, SVC_TEST_REQUIRE_BROWSER: '1' } })).toThrow('SVC_TEST_REQUIRE_BROWSER=1 needs the browser tests, but no Chromium or Chrome was found');

    const shell = executable(path.join(home, '.cache/ms-playwright/chromium_headless_shell-1200/chrome-headless-shell-linux64/chrome-headless-shell'));
    expect(findBrowser(nowhere)).toBe(shell);
    const newer = executable(path.join(home, '.cache/ms-playwright/chromium-1300/chrome-linux64/chrome'));
    expect(findBrowser(nowhere), 'the newest download first').toBe(newer);
    const onPath = executable(path.join(home, 'bin/chromium-browser'));
    expect(findBrowser(nowhere)).toBe(onPath);
    const chosen = executable(path.join(home, 'opt/chrome'));
    expect(findBrowser({ ...nowhere, env: { ...nowhere.env, CHROMIUM_PATH: chosen } })).toBe(chosen);

    const mac = { env: { PATH: '' }, platform: 'darwin' as const, home: tempDir() };
    expect(findBrowser(mac)).toBeNull();
    const app = executable(path.join(mac.home, 'Applications/Google Chrome.app/Contents/MacOS/Google Chrome'));
    expect(findBrowser(mac)).toBe(app);
  });

  it('npm test without a browser: the browser tests are skipped with one line saying how to run them, and the run passes', async () => {
    // PATH, HOME and CHROMIUM_PATH point nowhere: the machine of a newcomer with no browser.
    const empty = tempDir();
    const env = { PATH: empty, HOME: empty, CHROMIUM_PATH: path.join(empty, 'chrome'), CI: 'true' };
    const run = await new Promise<{ code: number | null; output: string }>((resolve, reject) => {
      const child = spawn(process.execPath, [path.join(ROOT, 'node_modules/vitest/vitest.mjs'), 'run', 'test/oauth/browser-flow.test.ts'], { cwd: ROOT, env });
      let output = '';
      child.stdout.on('data', (d) => (output += d));
      child.stderr.on('data', (d) => (output += d));
      // Stopped before the test's own timeout, so a run that hangs fails with what it printed.
      const timer = setTimeout(() => child.kill('SIGKILL'), 80_000);
      child.on('error', reject);
      child.on('close', (code) => {
        clearTimeout(timer);
        resolve({ code, output });
      });
    });
    expect(run.output).toContain(NO_BROWSER);
    expect(run.output).toMatch(/1 skipped/);
    expect(run.code, run.output).toBe(0);
  }, 90_000); // a whole vitest run of its own: seconds when idle, more on a busy machine
});
