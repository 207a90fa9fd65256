import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

// What a new operator reads before the first command: each statement here was once wrong.
const read = (file: string) => readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8');
const README = read('README.md');
const section = (text: string, heading: string) => {
  const start = text.indexOf(heading);
  expect(start, heading).toBeGreaterThanOrEqual(0);
  const next = text.slice(start + heading.length).search(/\n#{2,3} /);
  return next < 0 ? text.slice(start) : text.slice(start, start + heading.length + next);
};

describe('the operator documentation says what is true', () => {
  it('the README puts svc on the PATH without sudo (a root VPS has none)', () => {
    const step = section(README, '### Put `svc` on your PATH (clone)');
    const commands = [...step.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]).join('\n');
    expect(commands).toContain('ln -sf "$PWD/bin/svc.js" ~/.local/bin/svc');
    expect(commands).not.toMatch(/\bsudo\b/);
  });

  it('the Quick start says the second terminal must be in the same directory, and lists every question init asks', () => {
    const start = section(README, '### Put `svc` on your PATH (clone)');
    expect(start).toMatch(/open a second terminal \*\*in the same\s+directory\*\*/);
    const init = read('src/cli/init.ts');
    const asked = [...init.matchAll(/flag: '(--[a-z]+)', message: /g)].map((m) => m[1]);
    expect(asked).toEqual(['--email', '--password', '--website', '--workspace']);
    expect(start).toMatch(/`svc init` asks for your email, a password .*the\s+website URL and a workspace name/s);
    for (const flag of asked) expect(start).toContain(`\`${flag}\``);
  });

  it('the install section offers npm, a git URL and a clone, and says what npm 11 says of install scripts', () => {
    const install = section(README, '## Quick start');
    expect(install).toMatch(/npm install -g [^\n]*svc-daemon\s/);
    // The git URL as npm installs it: --install-links (npm/cli#6984), and both packages' scripts allowed.
    expect(install).toMatch(/npm install -g --install-links --allow-scripts=sqlite3,svc-daemon git\+https:[^\n]*\n/);
    expect(install).toContain('npm/cli#6984');
    expect(JSON.parse(read('package.json')).scripts.prepare).toBe('node scripts/prepare.mjs');
    expect(install).toContain('allowScripts');
  });

  it('the state directory and the config search order are documented where operators look', () => {
    expect(README).toContain('SVC_STATE_DIR');
    expect(README).toContain('RuntimeDirectory=svc');
    expect(read('docs/deployment.md')).toContain('### The daemon records: what the CLI knows of the running daemons');
    expect(read('config.example.yaml')).toMatch(/^# stateDir: /m);
  });

  it('deployment.md does not say a data directory holds the config or the logs', () => {
    const deployment = read('docs/deployment.md');
    expect(deployment).not.toMatch(/data directory[^.]*holds[^.]*(config|log)/i);
    expect(deployment).toMatch(/Neither its config nor its\s+log is there/);
  });
});
