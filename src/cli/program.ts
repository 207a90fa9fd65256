import { Command, CommanderError, Option } from 'commander';
import { VERSION, versionLine } from '../version.js';
import type { Io } from './io.js';
import { labelled } from './terminal-text.js';

type Register = (program: Command, io: Io) => void;

interface Group {
  /** The top-level commands the group's file declares, each as `name|alias` (as help shows them). */
  commands: readonly string[];
  load(): Promise<Register>;
}

/**
 * The command table, one entry per group file, in the order `svc --help` lists them. A group's
 * file imports the services its actions call, so a command loads only its own group (and
 * serve, the default command): loading them all cost every command, `--version` included,
 * most of a second of CPU. buildProgram checks each group declares the commands named here.
 */
const GROUPS: readonly Group[] = [
  { commands: ['serve'], load: async () => (await import('./serve.js')).registerServe },
  { commands: ['migrate'], load: async () => (await import('./migrate.js')).registerMigrate },
  { commands: ['backup', 'restore'], load: async () => (await import('./backup.js')).registerBackup },
  { commands: ['db'], load: async () => (await import('./db.js')).registerDb },
  { commands: ['init'], load: async () => (await import('./init.js')).registerInit },
  { commands: ['users'], load: async () => (await import('./users.js')).registerUsers },
  { commands: ['workspaces|workspace'], load: async () => (await import('./workspaces.js')).registerWorkspaces },
  { commands: ['members'], load: async () => (await import('./members.js')).registerMembers },
  { commands: ['articles|article'], load: async () => (await import('./articles.js')).registerArticles },
  { commands: ['keywords|keyword'], load: async () => (await import('./keywords.js')).registerKeywords },
  { commands: ['images|image'], load: async () => (await import('./images.js')).registerImages },
  { commands: ['blog-key|blog-keys'], load: async () => (await import('./blog-keys.js')).registerBlogKeys },
  { commands: ['webhook|webhooks'], load: async () => (await import('./webhooks.js')).registerWebhooks },
  { commands: ['api-keys|api-key'], load: async () => (await import('./api-keys.js')).registerApiKeys },
  { commands: ['connections|connection'], load: async () => (await import('./connections.js')).registerConnections },
  { commands: ['doctor'], load: async () => (await import('./doctor.js')).registerDoctor },
];

/** Every top-level command as its names (the first is the command's, the rest aliases), known without loading a group. */
const COMMANDS: ReadonlyArray<readonly string[]> = GROUPS.flatMap((g) => g.commands.map((c) => c.split('|')));

/**
 * The program with the commands `argv` can reach: serve (the default command, whose options
 * may come first), the group of the command argv names, or every group when argv asks for help
 * without naming one. Without argv, every group (the whole table, for tests and docs checks).
 */
export async function buildProgram(io: Io, argv?: readonly string[]): Promise<Command> {
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

  const [serve] = GROUPS;
  await register(program, io, serve);
  const wanted = argv === undefined ? GROUPS : groupsFor(program, argv);
  // Registered in table order, so help lists the commands the same way however many are loaded.
  for (const group of GROUPS) if (group !== serve && wanted.includes(group)) await register(program, io, group);
  return program;
}

async function register(program: Command, io: Io, group: Group): Promise<void> {
  const before = program.commands.length;
  (await group.load())(program, io);
  const declared = program.commands.slice(before).map((c) => [c.name(), ...c.aliases()].join('|'));
  // The table is what unknown commands and lazy loading go by: a group declaring other names is a bug.
  if (declared.join(' ') !== group.commands.join(' ')) {
    throw new Error(`cli/program.ts names the commands ${group.commands.join(', ')}, but their file declares ${declared.join(', ')}`);
  }
}

/** The groups `argv` runs: the one its command belongs to, all for help without one, none else (`svc` alone serves). */
function groupsFor(program: Command, argv: readonly string[]): readonly Group[] {
  const at = operandsAt(program, argv);
  const operands = at.map((i) => argv[i]);
  // `svc --help articles` is the program's help (commander reads options before the command).
  const helpFlag = argv.findIndex((a) => a === '--help' || a === '-h');
  const programHelp = helpFlag !== -1 && (at.length === 0 || helpFlag < at[0]);
  const named = operands[0] === 'help' ? operands[1] : operands[0];
  const group = named === undefined ? undefined : GROUPS.find((g) => g.commands.some((c) => c.split('|').includes(named)));
  if (group && !programHelp) return [group];
  // Help that names no known command lists them all, or suggests among them all.
  return programHelp || operands[0] === 'help' ? GROUPS : [];
}

/**
 * Where the operands of argv are, before `--`, skipping the options of the program and of the
 * default command (serve, so `svc --port 0` works) with their values: the command comes first.
 */
function operandsAt(program: Command, argv: readonly string[]): number[] {
  const takesValue = new Set<string>();
  const serve = program.commands.find((c) => c.name() === 'serve');
  for (const o of [...program.options, ...(serve?.options ?? [])]) {
    if (o.required || o.optional) for (const f of [o.short, o.long]) if (f) takesValue.add(f);
  }
  const at: number[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--') break;
    if (takesValue.has(arg)) i++;
    else if (!arg.startsWith('-')) at.push(i);
  }
  return at;
}

/** The first operand when it names no command (the table's names, loaded or not). */
export function unknownCommand(program: Command, argv: readonly string[]): string | undefined {
  const [at] = operandsAt(program, argv);
  const first = at === undefined ? undefined : argv[at];
  return first === undefined || first === 'help' || COMMANDS.some((names) => names.includes(first)) ? undefined : first;
}

/**
 * The command a mistyped one most likely meant (`artcles`: articles), as commander suggests for
 * subcommands: the closest name within an edit distance of about a third of its length.
 */
export function suggestCommand(typed: string): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const names of COMMANDS) {
    for (const name of names) {
      const d = editDistance(typed, name);
      if (d < bestDistance && d <= Math.max(1, Math.floor(name.length * 0.4))) {
        best = names[0];
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
