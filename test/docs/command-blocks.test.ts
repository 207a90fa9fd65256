import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/program.js';
import { processIo } from '../../src/cli/io.js';
import { BIN } from '../helpers/cli.js';
import { tempDir } from '../helpers/env.js';
import { type Block, ROOT, blocksOf, checkSvcRun, docFiles, inlineUnitComments, isShell, shellLines, svcRuns, tokenize, unquotedAmpersandUrls } from './blocks.js';

// Every command block of README.md and docs/*.md stays true (issue 24). The rule is in
// test/docs/blocks.ts: blocks marked `<!-- doctest: run -->` run here against a scratch data
// directory with the built svc on the PATH; every block is checked against the real command table.
// Failures name the file, the line and the block, so a doc edited by someone else is easy to fix.

const files = docFiles();
const blocks: Block[] = files.flatMap((f) => blocksOf(f));
const where = (b: Block, line = b.line) => `${b.file}:${line} (block at line ${b.line})`;

describe('command blocks in README.md and docs/*.md', () => {
  it('the checks catch the mistakes issue 24 found (they can fail)', async () => {
    const program = await buildProgram(processIo());
    const doc = [
      '```sh',
      'npx svc init --email a@example.com',
      'curl -H "Authorization: Bearer k" http://127.0.0.1:8080/api/v1/content/articles?page=0&limit=10',
      'svc artcles list',
      'sudo -u svc SVC_DATA_DIR=/d svc articles list --statuz draft | tail -n 3',
      'svc articles schedule my-post --at',
      'svc workspaces list | show | sett --x',
      '```',
      '```ini',
      '[Service]',
      'EnvironmentFile=/etc/svc/database.env   # SVC_DATABASE_URL=...',
      '```',
    ].join('\n');
    const [sh, unit] = blocksOf('x.md', doc);
    const svcProblems = shellLines(sh).flatMap(({ text }) => svcRuns(tokenize(text)).flatMap((run) => checkSvcRun(program, run)));
    expect(svcProblems).toEqual([
      expect.stringContaining("unknown command 'artcles'"),
      "unknown option '--statuz' for 'svc articles list'",
      "option '--at' of 'svc articles schedule' needs a value",
    ]);
    expect(shellLines(sh).map(({ text }) => notBareSvc(text))).toEqual([true, false, false, false, false, false]);
    expect(shellLines(sh).flatMap(({ text }) => unquotedAmpersandUrls(text))).toEqual(['http://127.0.0.1:8080/api/v1/content/articles?page=0&limit=10']);
    expect(inlineUnitComments(unit)).toEqual([{ line: 11, text: 'EnvironmentFile=/etc/svc/database.env   # SVC_DATABASE_URL=...' }]);
    // Quoted, the same URL is fine; `svc workspaces list | show` is a synopsis of siblings.
    expect(unquotedAmpersandUrls('curl "http://h/a?b=1&c=2"')).toEqual([]);
    expect(svcRuns(tokenize('svc workspaces list | show | set --plan pro')).flatMap((run) => checkSvcRun(program, run))).toEqual([]);
  });

  it('finds the blocks (the extractor reads every doc)', () => {
    expect(files).toContain('docs/operations.md');
    expect(blocks.filter(isShell).length).toBeGreaterThan(20);
  });

  it('every `svc ...` line names a real command with real options; URLs with & are quoted; unit files have no end-of-line comments', async () => {
    const program = await buildProgram(processIo());
    const problems: string[] = [];
    for (const b of blocks) {
      if (isShell(b)) {
        for (const { line, text } of shellLines(b)) {
          for (const run of svcRuns(tokenize(text))) for (const p of checkSvcRun(program, run)) problems.push(`${where(b, line)}: ${p}\n    ${text.trim()}`);
          if (notBareSvc(text)) problems.push(`${where(b, line)}: write bare \`svc\` (README, "Put svc on your PATH"), not npx or node .../bin/svc.js:\n    ${text.trim()}`);
          for (const url of unquotedAmpersandUrls(text)) problems.push(`${where(b, line)}: quote the URL (the shell cuts the command at '&'): ${url}`);
        }
      }
      for (const { line, text } of inlineUnitComments(b)) problems.push(`${where(b, line)}: systemd has no comments after a value (the "# ..." becomes part of it); put it on a line of its own:\n    ${text}`);
    }
    // Inline `svc ...` in the prose is checked too (the first line of each code span).
    for (const file of files) {
      readFileSync(path.join(ROOT, file), 'utf8')
        .split('\n')
        .forEach((text, i) => {
          for (const m of text.matchAll(/`([^`]+)`/g)) if (notBareSvc(m[1])) problems.push(`${file}:${i + 1} (inline code): write bare \`svc\`, not npx or node .../bin/svc.js: ${m[1]}`);
          for (const m of text.matchAll(/`((?:sudo -u \S+ )?(?:[A-Z_]+=\S+ )*svc [^`]+)`/g)) {
            for (const run of svcRuns(tokenize(m[1]))) for (const p of checkSvcRun(program, run, true)) problems.push(`${file}:${i + 1} (inline code): ${p}\n    ${m[1]}`);
          }
        });
    }
    expect(problems, problems.join('\n')).toEqual([]);
  });

  it('doctest annotations are spelled right and stand right above a block', () => {
    const problems: string[] = [];
    for (const file of files) {
      const lines = readFileSync(path.join(ROOT, file), 'utf8').split('\n');
      lines.forEach((text, i) => {
        if (!/^\s*<!--\s*doctest/.test(text)) return;
        if (!/^\s*<!--\s*doctest:\s*(run|no-run(\s*\(.+\))?)\s*-->\s*$/.test(text)) problems.push(`${file}:${i + 1}: write <!-- doctest: run --> or <!-- doctest: no-run (why) -->, not: ${text.trim()}`);
        else if (!/^\s*(```|~~~)/.test(lines[i + 1] ?? '')) problems.push(`${file}:${i + 1}: a doctest annotation must be the line right above a fenced block`);
        else if (/no-run\s*-->/.test(text)) problems.push(`${file}:${i + 1}: say why the block cannot run: <!-- doctest: no-run (why) -->`);
      });
    }
    expect(problems, problems.join('\n')).toEqual([]);
  });

  const runnable = blocks.filter((b) => b.annotation?.run);
  it('there are blocks marked to run', () => expect(runnable.length).toBeGreaterThan(0));

  for (const file of [...new Set(runnable.map((b) => b.file))]) {
    it(`${file}: the blocks marked <!-- doctest: run --> run (in order, one scratch data dir)`, async () => {
      const dir = tempDir('svc-doctest-');
      const bin = path.join(dir, 'bin');
      mkdirSync(bin);
      symlinkSync(BIN, path.join(bin, 'svc'));
      const env = { PATH: `${bin}:${process.env.PATH}`, HOME: dir, CI: 'true', SVC_DATA_DIR: path.join(dir, 'data'), SVC_STATE_DIR: path.join(dir, 'state'), SVC_LOG_LEVEL: 'warn' };
      // What every block may assume: `svc init` done for example.com, as the README's Quick start.
      const setup = await sh('svc init --email you@example.com --password "correct horse battery" --website https://example.com --workspace example.com', dir, env);
      expect(setup.code, setup.stderr).toBe(0);
      for (const b of runnable.filter((r) => r.file === file)) {
        const r = await sh(b.lines.join('\n'), dir, env);
        expect(r.code, `${where(b)} exited ${r.code}\n--- block\n${b.lines.join('\n')}\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr}`).toBe(0);
      }
    }, 120_000);
  }
});

/** `npx svc` or `node /path/bin/svc.js` outside the one install step (which links bin/svc.js with ln). */
function notBareSvc(text: string): boolean {
  return /\bnpx svc\b|\bnode \S*\/bin\/svc\.js\b/.test(text) && !/\bln -s/.test(text);
}

function sh(script: string, cwd: string, env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-e', '-o', 'pipefail', '-c', script], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, stdout, stderr });
    });
  });
}
