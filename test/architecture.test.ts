import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The layering rules of /work/shared/style.md, checked by reading src/. Each rule lists every
// offending file and import, so a failure says exactly what to move.

const SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../src');

interface Import {
  /** The specifier as written. */
  spec: string;
  /** src-relative target for relative imports ('workspaces/service.ts'), else undefined. */
  target?: string;
  typeOnly: boolean;
}

interface SourceFile {
  file: string; // src-relative, e.g. 'cli/harness.ts'
  text: string;
  imports: Import[];
}

function listTs(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return listTs(full);
    return e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [full] : [];
  });
}

/** Code without comments, so a rule named in a comment is not a violation. */
const stripComments = (text: string) => text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');

function parseImports(file: string, text: string): Import[] {
  const out: Import[] = [];
  const re = /(?:^|\n)\s*(import|export)\s+(type\s+)?([^'";]*?)\s*from\s*['"]([^'"]+)['"]|(?:^|\n)\s*import\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;
  for (const m of text.matchAll(re)) {
    const spec = m[4] ?? m[5] ?? m[6];
    let typeOnly = Boolean(m[2]);
    const clause = m[3];
    if (!typeOnly && clause) {
      // `import { type A, type B } from` is erased too.
      const braces = /^\{([\s\S]*)\}$/.exec(clause.trim());
      if (braces) {
        const names = braces[1].split(',').map((s) => s.trim()).filter(Boolean);
        typeOnly = names.length > 0 && names.every((n) => n.startsWith('type '));
      }
    }
    const target = spec.startsWith('.') ? path.relative(SRC, path.resolve(path.dirname(path.join(SRC, file)), spec)).replace(/\.js$/, '.ts') : undefined;
    out.push({ spec, target, typeOnly });
  }
  return out;
}

const FILES: SourceFile[] = listTs(SRC).map((full) => {
  const file = path.relative(SRC, full);
  const text = stripComments(readFileSync(full, 'utf8'));
  return { file, text, imports: parseImports(file, text) };
});

const FEATURES = ['workspaces', 'articles', 'connectors', 'content', 'publishing', 'imports', 'auth', 'oauth', 'accounts', 'webhooks', 'jobs', 'keywords', 'backup', 'limits', 'images'];
const ADAPTERS = ['http', 'mcp', 'cli'];
const folder = (file: string) => (file.includes('/') ? file.split('/')[0] : file);
const isFeature = (file: string) => FEATURES.includes(folder(file));
const isAdapter = (file: string) => ADAPTERS.includes(folder(file));
const isStore = (file: string) => /(^|\/|-)store\.ts$/.test(path.basename(file)) || path.basename(file) === 'store.ts';
const pkg = (spec: string) => (spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]);

type Rule = (f: SourceFile, i: Import) => string | undefined;

function violations(rule: Rule, files = FILES): string[] {
  const out: string[] = [];
  for (const f of files) for (const i of f.imports) {
    const why = rule(f, i);
    if (why) out.push(`${f.file} imports ${i.spec}${i.typeOnly ? ' (type)' : ''}: ${why}`);
  }
  return out;
}

describe('architecture: what may import what', () => {
  it('reads the source tree', () => {
    expect(FILES.length).toBeGreaterThan(40);
    expect(FILES.find((f) => f.file === 'cli/harness.ts')?.imports.some((i) => i.target === 'app.ts')).toBe(true);
  });

  it('lib/ and errors.ts import nothing else from src/', () => {
    const rule: Rule = (f, i) => {
      if (!(folder(f.file) === 'lib' || f.file === 'errors.ts') || !i.target) return undefined;
      return folder(i.target) === 'lib' || i.target === 'errors.ts' ? undefined : 'lib/ and errors.ts stay at the bottom';
    };
    expect(violations(rule)).toEqual([]);
  });

  it('config/ imports only lib/, errors.ts and itself', () => {
    const rule: Rule = (f, i) => {
      if (folder(f.file) !== 'config' || !i.target) return undefined;
      return ['config', 'lib', 'errors.ts'].includes(folder(i.target)) ? undefined : 'config/ must not import db/, features or adapters';
    };
    expect(violations(rule)).toEqual([]);
  });

  it('db/ imports only config/, lib/, errors.ts and itself', () => {
    const rule: Rule = (f, i) => {
      if (folder(f.file) !== 'db' || !i.target) return undefined;
      return ['db', 'config', 'lib', 'errors.ts'].includes(folder(i.target)) ? undefined : 'db/ must not import features or adapters';
    };
    expect(violations(rule)).toEqual([]);
  });

  it('features do not import adapters, app.ts, koa or the MCP SDK runtime', () => {
    const rule: Rule = (f, i) => {
      if (!isFeature(f.file)) return undefined;
      if (i.target && (isAdapter(i.target) || i.target === 'main.ts')) return 'features must not import http/, mcp/ or cli/';
      // jobs/ are started by serve with the whole App, so they may name its type.
      if (i.target === 'app.ts' && !(i.typeOnly && folder(f.file) === 'jobs')) return 'features must not import app.ts (take a Ctx)';
      if (!i.target && ['koa', '@koa/router', '@koa/cors', '@koa/bodyparser'].includes(pkg(i.spec))) return 'koa belongs to http/';
      // oauth/metadata.ts may reuse the SDK's zod schemas for the metadata documents.
      if (!i.target && pkg(i.spec) === '@modelcontextprotocol/sdk' && !(f.file === 'oauth/metadata.ts' && /\/shared\/auth(\.js)?$/.test(i.spec))) return 'the MCP SDK belongs to mcp/';
      return undefined;
    };
    expect(violations(rule)).toEqual([]);
  });

  it('adapters do not reach the database: no knex, db/ or store modules', () => {
    const rule: Rule = (f, i) => {
      if (!isAdapter(f.file) || i.typeOnly) return undefined;
      if (!i.target) return ['knex', 'pg', 'sqlite3'].includes(pkg(i.spec)) ? 'adapters call services, not the database driver' : undefined;
      if (folder(i.target) === 'db') return 'adapters must not import db/ (go through a service or app.ts)';
      if (isStore(i.target)) return 'adapters must not import a store module (call the service)';
      return undefined;
    };
    expect(violations(rule)).toEqual([]);
  });

  it('only the CLI entry points build the app: app.ts is imported at run time only by cli/harness, serve and migrate', () => {
    const allowed = ['cli/harness.ts', 'cli/serve.ts', 'cli/migrate.ts', 'index.ts'];
    const rule: Rule = (f, i) => (i.target === 'app.ts' && !i.typeOnly && !allowed.includes(f.file) ? 'import the App type only; the app is built by the CLI entry points' : undefined);
    expect(violations(rule)).toEqual([]);
  });

  it('main.ts imports only cli/program.ts, cli/io.ts, cli/terminal-text.ts and errors.ts', () => {
    const rule: Rule = (f, i) =>
      f.file === 'main.ts' && i.target && !['cli/program.ts', 'cli/io.ts', 'cli/terminal-text.ts', 'errors.ts'].includes(i.target) ? 'main.ts only parses, runs and maps errors to exit codes' : undefined;
    expect(violations(rule)).toEqual([]);
  });

  it('libraries stay in their one place', () => {
    const confined: Array<[string, (file: string) => boolean, string]> = [
      ['knex', (file) => folder(file) === 'db' || isStore(file), 'db/ and store modules'],
      ['pg', (file) => folder(file) === 'db' || isStore(file), 'db/ and store modules'],
      ['koa', (file) => folder(file) === 'http' || file === 'mcp/endpoint.ts', 'http/ and mcp/endpoint.ts'],
      ['@koa/router', (file) => folder(file) === 'http' || file === 'mcp/endpoint.ts', 'http/ and mcp/endpoint.ts'],
      ['@koa/cors', (file) => folder(file) === 'http' || file === 'mcp/endpoint.ts', 'http/ and mcp/endpoint.ts'],
      ['@koa/bodyparser', (file) => folder(file) === 'http' || file === 'mcp/endpoint.ts', 'http/ and mcp/endpoint.ts'],
      ['@modelcontextprotocol/sdk', (file) => folder(file) === 'mcp' || file === 'oauth/metadata.ts', 'mcp/ (and oauth/metadata.ts for its zod schemas)'],
      ['marked', (file) => file === 'lib/markdown.ts', 'lib/markdown.ts'],
      ['sanitize-html', (file) => file === 'lib/markdown.ts', 'lib/markdown.ts'],
      ['p-queue', (file) => file === 'webhooks/worker.ts' || file === 'webhooks/resolve-host.ts', 'webhooks/worker.ts and webhooks/resolve-host.ts'],
      ['prompts', (file) => file === 'cli/ask.ts', 'cli/ask.ts'],
      ['string-width', (file) => file === 'cli/io.ts', 'cli/io.ts'],
      ['pino-pretty', (file) => file === 'lib/log.ts', 'lib/log.ts'],
      ['commander', (file) => file === 'cli/program.ts' || file === 'main.ts', 'cli/program.ts (others may import its types)'],
      ['csv-parse', (file) => file === 'keywords/csv.ts', 'keywords/csv.ts'],
      ['turndown', (file) => file === 'imports/html.ts', 'imports/html.ts'],
      ['fast-xml-parser', (file) => file === 'imports/wordpress.ts', 'imports/wordpress.ts'],
      ['smol-toml', (file) => file === 'imports/front-matter.ts', 'imports/front-matter.ts'],
      ['yaml', (file) => file === 'config/load.ts' || file === 'imports/front-matter.ts', 'config/load.ts and imports/front-matter.ts'],
    ];
    const rule: Rule = (f, i) => {
      if (i.target || i.typeOnly) return undefined;
      const hit = confined.find(([name]) => pkg(i.spec) === name);
      return hit && !hit[1](f.file) ? `${hit[0]} belongs in ${hit[2]}` : undefined;
    };
    expect(violations(rule)).toEqual([]);
  });
});

describe('architecture: process globals', () => {
  it('process.exit is called only by main() in main.ts, after run() returned (style.md: the only process.exit)', () => {
    const exits = (text: string) => /\bprocess\.exit\s*\(/.test(text);
    expect(FILES.filter((f) => exits(f.text) && f.file !== 'main.ts').map((f) => f.file)).toEqual([]);
    const main = FILES.find((f) => f.file === 'main.ts')!.text;
    expect(exits(main.slice(0, main.indexOf('export async function main(')))).toBe(false);
  });

  it('process.env is read only by cli/io.ts (processIo) and config/', () => {
    const offenders = FILES.filter((f) => /\bprocess\.env\b/.test(f.text) && f.file !== 'cli/io.ts' && folder(f.file) !== 'config').map((f) => f.file);
    expect(offenders).toEqual([]);
  });
});

/**
 * Run-time imports allowed to close a cycle between folders: none. Keep it that way by moving a
 * shared piece to the lower folder (connectors/, lib/) or the orchestration to a higher one
 * (publishing/).
 */
const PENDING_CYCLE_EDGES: string[] = [];

describe('architecture: no import cycles between folders', () => {
  it('every edge pending a decision still exists', () => {
    const all = new Set(FILES.flatMap((f) => f.imports.filter((i) => i.target && !i.typeOnly).map((i) => `${f.file} -> ${i.target}`)));
    expect(PENDING_CYCLE_EDGES.filter((e) => !all.has(e))).toEqual([]);
  });

  it('the folder graph of run-time imports has no cycle (besides the edges pending a decision)', () => {
    // Node per top-level folder (or root file). Type-only imports are erased and do not count.
    const edges = new Map<string, Map<string, string[]>>();
    for (const f of FILES) for (const i of f.imports) {
      if (!i.target || i.typeOnly || PENDING_CYCLE_EDGES.includes(`${f.file} -> ${i.target}`)) continue;
      const a = folder(f.file);
      const b = folder(i.target);
      if (a === b) continue;
      if (!edges.has(a)) edges.set(a, new Map());
      const to = edges.get(a)!;
      to.set(b, [...(to.get(b) ?? []), `${f.file} -> ${i.target}`]);
    }
    // Tarjan's strongly connected components.
    const index = new Map<string, number>();
    const low = new Map<string, number>();
    const stack: string[] = [];
    const onStack = new Set<string>();
    const cycles: string[][] = [];
    let n = 0;
    const visit = (v: string) => {
      index.set(v, n);
      low.set(v, n++);
      stack.push(v);
      onStack.add(v);
      for (const w of edges.get(v)?.keys() ?? []) {
        if (!index.has(w)) {
          visit(w);
          low.set(v, Math.min(low.get(v)!, low.get(w)!));
        } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
      if (low.get(v) === index.get(v)) {
        const scc: string[] = [];
        let w: string;
        do {
          w = stack.pop()!;
          onStack.delete(w);
          scc.push(w);
        } while (w !== v);
        if (scc.length > 1) cycles.push(scc.sort());
      }
    };
    for (const v of edges.keys()) if (!index.has(v)) visit(v);
    const report = cycles.map((scc) =>
      [
        `cycle between ${scc.join(', ')}:`,
        ...scc.flatMap((a) => scc.filter((b) => b !== a).flatMap((b) => (edges.get(a)?.get(b) ?? []).map((e) => `  ${e}`))),
      ].join('\n'),
    );
    expect(report).toEqual([]);
  });
});
