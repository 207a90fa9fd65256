import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Command, Option } from 'commander';

// The command blocks of README.md and docs/*.md, and the static checks every one of them gets.
//
// The rule (README, "Command blocks in the docs are tested"): every fenced block is read. A block
// preceded by `<!-- doctest: run -->` is run by test/docs/command-blocks.test.ts with the built
// svc on the PATH, in a scratch directory; `<!-- doctest: no-run (why) -->` says why one cannot
// run here (systemd, sudo, a remote PostgreSQL). Every block, run or not, is checked statically.

export interface Block {
  file: string;
  /** 1-based line of the opening fence. */
  line: number;
  lang: string;
  lines: string[];
  annotation?: { run: boolean; why?: string };
}

export const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');

export function docFiles(): string[] {
  const docs = readdirSync(path.join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`);
  return ['README.md', ...docs];
}

const FENCE = /^(\s*)(```+|~~~+)\s*([\w-]*)/;
const ANNOTATION = /^\s*<!--\s*doctest:\s*(run|no-run)\b\s*(?:\((.*)\))?\s*-->\s*$/;

export function blocksOf(file: string, text = readFileSync(path.join(ROOT, file), 'utf8')): Block[] {
  const all = text.split('\n');
  const blocks: Block[] = [];
  for (let i = 0; i < all.length; i++) {
    const open = FENCE.exec(all[i]);
    if (!open) continue;
    const [, indent, fence, lang] = open;
    const lines: string[] = [];
    let j = i + 1;
    for (; j < all.length && !all[j].trimStart().startsWith(fence); j++) lines.push(all[j].startsWith(indent) ? all[j].slice(indent.length) : all[j]);
    const note = i > 0 ? ANNOTATION.exec(all[i - 1]) : null;
    blocks.push({ file, line: i + 1, lang: lang.toLowerCase(), lines, annotation: note ? { run: note[1] === 'run', why: note[2] } : undefined });
    i = j;
  }
  return blocks;
}

export const isShell = (b: Block) => ['sh', 'bash', 'shell', 'console'].includes(b.lang);

/** Logical lines of a shell block: `\` continuations joined, each with its first line number. */
export function shellLines(b: Block): Array<{ line: number; text: string }> {
  const out: Array<{ line: number; text: string }> = [];
  for (let i = 0; i < b.lines.length; i++) {
    const start = i;
    let text = b.lines[i];
    while (/\\$/.test(text) && i + 1 < b.lines.length) text = text.slice(0, -1) + ' ' + b.lines[++i].trim();
    out.push({ line: b.line + 1 + start, text });
  }
  return out;
}

export interface Token {
  text: string;
  /** Whether any part of it was quoted (a quoted `&` is data, not an operator). */
  quoted: boolean;
  /** An unquoted shell operator: `|`, `&&`, `||`, `;`, `&`. */
  op?: boolean;
}

/** Words of one shell line, quotes removed, `$(...)` kept whole, stopping at an unquoted `#` comment. */
export function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let cur = '';
  let quoted = false;
  let started = false;
  const flush = () => {
    if (started) tokens.push({ text: cur, quoted });
    cur = '';
    quoted = false;
    started = false;
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "'" || c === '"') {
      const end = text.indexOf(c, i + 1);
      const stop = end === -1 ? text.length : end;
      cur += text.slice(i + 1, stop);
      quoted = started = true;
      i = stop;
    } else if (c === '\\' && i + 1 < text.length) {
      cur += text[++i];
      started = true;
    } else if (c === '$' && text[i + 1] === '(') {
      let depth = 0;
      let j = i + 1;
      for (; j < text.length; j++) {
        if (text[j] === '(') depth++;
        else if (text[j] === ')' && --depth === 0) break;
      }
      cur += text.slice(i, j + 1);
      started = true;
      i = j;
    } else if (/\s/.test(c)) {
      flush();
    } else if (c === '#' && !started) {
      break;
    } else if ((c === '|' || c === '&' || c === ';') && !started) {
      // An operator only where it stands alone: `draft|scheduled` in a synopsis is one word.
      const two = text.slice(i, i + 2);
      const op = two === '&&' || two === '||' ? two : c;
      const after = text[i + op.length];
      if (after === undefined || /\s/.test(after)) {
        tokens.push({ text: op, quoted: false, op: true });
        i += op.length - 1;
      } else {
        cur += c;
        started = true;
      }
    } else {
      cur += c;
      started = true;
    }
  }
  flush();
  return tokens;
}

const ENV_ASSIGNMENT = /^[A-Z_][A-Z0-9_]*=/;

/**
 * The svc invocations of a line: the words after each `svc` that starts a command (after
 * `NAME=value` assignments, `sudo [-u user]`, `exec`), up to the next operator. `svc a | b`
 * (a synopsis of sibling commands) is returned as one run: the checker decides what `b` is.
 */
export function svcRuns(tokens: Token[]): Token[][] {
  const runs: Token[][] = [];
  let atStart = true;
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    if (t.op) {
      atStart = true;
      continue;
    }
    if (!atStart) continue;
    if (ENV_ASSIGNMENT.test(t.text) || t.text === 'exec' || t.text === 'time') continue;
    if (t.text === 'sudo') {
      if (tokens[i + 1]?.text === '-u') i += 2;
      continue;
    }
    atStart = false;
    if (t.text !== 'svc' && !t.text.endsWith('/svc')) continue;
    const run: Token[] = [];
    for (i++; i < tokens.length; i++) {
      if (tokens[i].op && tokens[i].text !== '|') break;
      run.push(tokens[i]);
    }
    i--;
    runs.push(run);
  }
  return runs;
}

const names = (c: Command) => [c.name(), ...c.aliases()];
const findSub = (c: Command, name: string) => c.commands.find((s) => names(s).includes(name));

function findOption(c: Command, flag: string): Option | 'help' | undefined {
  for (let cur: Command | null = c; cur; cur = cur.parent) {
    const o = cur.options.find((o) => o.long === flag || o.short === flag);
    if (o) return o;
  }
  return flag === '-h' || flag === '--help' ? 'help' : undefined;
}

const path_ = (c: Command): string => (c.parent ? `${path_(c.parent)} ${c.name()}` : c.name());

/**
 * Problems of one `svc ...` run against the real command table: unknown commands and options
 * (of the command or a parent), and a value missing after an option that takes one. Placeholders
 * (`SLUG`, `ID`, `...`) and bracketed optional parts are fine; `[a|b]` reads as one word.
 * `inline`: a code span in prose, which may quote a fragment: only unknown options count.
 */
export function checkSvcRun(program: Command, run: Token[], inline = false): string[] {
  const problems: string[] = [];
  let cmd = program;
  let leaf = false; // a command without subcommands: further words are its arguments
  const serve = findSub(program, 'serve')!;
  for (let i = 0; i < run.length; i++) {
    const raw = run[i].text;
    if (run[i].op) {
      // `svc workspaces list | show | set ...`: a sibling of the command before; else a pipe.
      const next = run[i + 1]?.text.replace(/^\[/, '');
      const sibling = next && cmd.parent ? findSub(cmd.parent, next) : undefined;
      if (!sibling) break;
      cmd = sibling;
      leaf = sibling.commands.length === 0;
      i++;
      continue;
    }
    const word = raw.replace(/^\[+/, '').replace(/\]+$/, '');
    if (word === '' || word === '...' || run[i].quoted) continue;
    if (word.startsWith('-') && word.length > 1 && !/^-\d/.test(word)) {
      const flag = word.replace(/=.*$/, '');
      // `svc --port 0` serves: the program's own options include serve's.
      const o = findOption(cmd, flag) ?? (cmd === program ? findOption(serve, flag) : undefined);
      if (!o) {
        problems.push(`unknown option '${flag}' for '${path_(cmd)}'`);
        continue;
      }
      if (o !== 'help' && (o.required || o.optional) && !word.includes('=')) {
        const value = run[i + 1];
        if (o.required && !inline && (!value || value.op || (value.text.startsWith('-') && !value.quoted && !/^-\d/.test(value.text)))) problems.push(`option '${flag}' of '${path_(cmd)}' needs a value`);
        else i++;
      }
      continue;
    }
    if (leaf || cmd.commands.length === 0) {
      leaf = true;
      continue;
    }
    const sub = findSub(cmd, word);
    // Prose quotes fragments (`svc <version> listening`, `svc articles show/list`): inline code is
    // held to known options of known commands only.
    if (!sub && inline) break;
    if (sub) {
      cmd = sub;
      continue;
    }
    if (cmd === program) {
      problems.push(`unknown command '${word}' (svc ${program.commands.map((c) => c.name()).join(', ')})`);
      break;
    }
    problems.push(`unknown command '${word}' under '${path_(cmd)}' (known: ${cmd.commands.map((c) => c.name()).join(', ')})`);
    break;
  }
  return problems;
}

/** URLs with `&` in an unquoted word: the shell would cut the command at the `&` (and background it). */
export function unquotedAmpersandUrls(text: string): string[] {
  // A URL right after whitespace (or at the start) is not inside quotes.
  return [...text.matchAll(/(?:^|\s)(https?:\/\/[^\s'"]*&[^\s'"]*)/g)].map((m) => m[1]);
}

const UNIT_SECTION = /^\[(Unit|Service|Timer|Install|Socket|Path|Mount)\]\s*$/;

/** systemd reads `#` and `;` as comments only at the start of a line: one after a value is part of it. */
export function inlineUnitComments(b: Block): Array<{ line: number; text: string }> {
  if (!b.lines.some((l) => UNIT_SECTION.test(l))) return [];
  return b.lines.flatMap((text, i) => (/^[A-Za-z][\w]*=.*\s[#;]/.test(text) && !/^ExecStart\w*=/.test(text) ? [{ line: b.line + 1 + i, text }] : []));
}
