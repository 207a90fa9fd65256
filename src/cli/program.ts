import { Command, CommanderError, Option } from 'commander';
import { VERSION, versionLine } from '../version.js';
import type { Io } from './io.js';
import { labelled } from './terminal-text.js';
import { registerApiKeys } from './api-keys.js';
import { registerArticles } from './articles.js';
import { registerBackup } from './backup.js';
import { registerBlogKeys } from './blog-keys.js';
import { registerConnections } from './connections.js';
import { registerDb } from './db.js';
import { registerDoctor } from './doctor.js';
import { registerInit } from './init.js';
import { registerImages } from './images.js';
import { registerKeywords } from './keywords.js';
import { registerMembers } from './members.js';
import { registerMigrate } from './migrate.js';
import { registerServe } from './serve.js';
import { registerUsers } from './users.js';
import { registerWebhooks } from './webhooks.js';
import { registerWorkspaces } from './workspaces.js';

/**
 * The command table. Each group file declares its commands and actions; every action parses,
 * calls a service and prints. `svc` alone serves.
 */
export function buildProgram(io: Io): Command {
  const program = new Command('svc')
    .description('svc: serve SEO articles to blogs (content API), AI agents (MCP) and webhook receivers')
    // Not commander's .version(): the commit is looked up only when asked (it may start git).
    .addOption(new Option('-v, --version', 'print the release and the commit it was built from'))
    .on('option:version', () => {
      io.stdout.write(`${versionLine()}\n`);
      throw new CommanderError(0, 'commander.version', VERSION);
    })
    .addOption(new Option('-c, --config <path>', 'config file (default: $SVC_CONFIG, else /etc/svc/config.yaml, else ./config.yaml; none for no file)'))
    .option('--json', 'print results (and errors) as JSON on stdout')
    .option('--new-database', 'create a new database even though a running svc daemon serves another (refused otherwise)')
    .showHelpAfterError('(run with --help for usage)')
    .showSuggestionAfterError(true)
    .exitOverride()
    // With --json a usage mistake is JSON on stdout (main.ts): nothing for people on stderr.
    .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => (io.json ? undefined : io.stderr.write(labelled(s, Boolean(io.colour)))) });
  // Subcommands created after this point inherit exitOverride and the output streams.

  for (const register of [
    registerServe,
    registerMigrate,
    registerBackup,
    registerDb,
    registerInit,
    registerUsers,
    registerWorkspaces,
    registerMembers,
    registerArticles,
    registerKeywords,
    registerImages,
    registerBlogKeys,
    registerWebhooks,
    registerApiKeys,
    registerConnections,
    registerDoctor,
  ]) {
    register(program, io);
  }
  return program;
}


/**
 * The first operand when it names no command. Options of the program and of the default
 * command (serve, so `svc --port 0` works) are skipped with their values.
 */
export function unknownCommand(program: Command, argv: string[]): string | undefined {
  const names = new Set(['help']);
  for (const c of program.commands) for (const n of [c.name(), ...c.aliases()]) names.add(n);
  const takesValue = new Set<string>();
  const serve = program.commands.find((c) => c.name() === 'serve');
  for (const o of [...program.options, ...(serve?.options ?? [])]) {
    if (o.required || o.optional) for (const f of [o.short, o.long]) if (f) takesValue.add(f);
  }
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--') return undefined;
    if (takesValue.has(arg)) {
      i++;
      continue;
    }
    if (arg.startsWith('-')) continue;
    return names.has(arg) ? undefined : arg;
  }
  return undefined;
}

/**
 * The command a mistyped one most likely meant (`artcles`: articles), as commander suggests for
 * subcommands: the closest name within an edit distance of about a third of its length.
 */
export function suggestCommand(program: Command, typed: string): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const c of program.commands) {
    for (const name of [c.name(), ...c.aliases()]) {
      const d = editDistance(typed, name);
      if (d < bestDistance && d <= Math.max(1, Math.floor(name.length * 0.4))) {
        best = c.name();
        bestDistance = d;
      }
    }
  }
  return best;
}

/** Damerau-Levenshtein distance (adjacent swaps count one). */
function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}
