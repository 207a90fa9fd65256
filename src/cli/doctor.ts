import type { Command } from 'commander';
import { dependencyHealth } from '../limits/dependency-health.js';
import { growingTableSizes } from '../jobs/table-sizes.js';
import { AppError } from '../errors.js';
import { scheduleHealth } from '../publishing/failures.js';
import { webhookHealth } from '../webhooks/health.js';
import { listWorkspaces } from '../workspaces/service.js';
import { formatBytes } from './backup.js';
import type { App } from '../app.js';
import type { Workspace } from '../workspaces/types.js';
import { type MigrationStatus, act, breakingMigrations, CONFIG_SEARCH, configFor, migrationStatus, servingDaemons } from './harness.js';
import { type SettingsReport, settingsReport } from './settings-report.js';
import type { Io } from './io.js';
import { escapeLine } from './terminal-text.js';

const MARK = { ok: 'ok  ', warn: 'WARN', fail: 'FAIL' } as const;

// Details carry text from elsewhere (host names of other machines, URLs): escaped, one line each.
const line = (f: { level: keyof typeof MARK; check: string; detail: string }) => escapeLine(`${MARK[f.level]}  ${f.check}: ${f.detail}`);

/** `svc doctor`: checks what needs an operator's attention; exits 1 when something has failed. */
export function registerDoctor(program: Command, io: Io): void {
  const doctor = doctorAction(io);
  program
    .command('doctor')
    .description('check the database (without migrating it: which migrations are pending, and whether svc migrate would apply them now) and Redis (each within its deadline), the daemons (which are running, which are gone), the webhooks and who holds their events; exits 1 when something needs fixing')
    .action(async (...params: unknown[]) => {
      // No database where the settings point: the settings and that, as findings; nothing created.
      // (A PostgreSQL database without svc's tables is found when act opens it.)
      const config = configFor(io, (params[params.length - 1] as Command).optsWithGlobals());
      try {
        return await doctor(...params);
      } catch (err) {
        if (!(err instanceof AppError && err.code === 'database_not_found')) throw err;
        const findings = [...settingFindings(settingsReport(config)), { level: 'fail' as const, check: 'database', detail: `${err.message}. ${err.hint}` }];
        throw new AppError('doctor_failed', 400, [...findings.map(line), '1 problem needs fixing'].join('\n'), { details: { findings } });
      }
    });
}

type Finding = { level: keyof typeof MARK; check: string; detail: string };

/**
 * The checks that read svc's tables, each with the newest migration that changed what its queries read (the
 * workspaces' last is 2026-11-23-1601): on a database behind this svc, one whose migration is not applied yet is
 * skipped. test/cli/doctor-pending.test.ts runs each on a database migrated exactly that far.
 */
export const DATABASE_CHECKS: ReadonlyArray<{ check: string; needs: string; run: (app: App, workspaces: () => Promise<Workspace[]>) => Promise<Finding[]> }> = [
  { check: 'webhooks', needs: '2026-11-23-1601-add-workspace-keyword-defaults', run: async (app, workspaces) => webhookHealth(app, await workspaces()) },
  { check: 'scheduled articles', needs: '2026-11-23-1701-add-article-publish-errors', run: async (app, workspaces) => scheduleHealth(app, new Map((await workspaces()).map((w) => [w.id, w.name]))) },
  { check: 'table sizes', needs: '2026-11-30-2300-move-webhook-snapshots', run: async (app) => sizeFindings(await growingTableSizes(app.db)) },
];

// Migrating nothing: mid-upgrade (new svc installed, the older daemons still serving) migrating would be refused, and
// doctor is what the operator runs then. It writes nothing to the database.
function doctorAction(io: Io) {
  return act(
    io,
    async ({ app, out }) => {
      const status = await migrationStatus(app.db);
      const current = status.pending.length === 0 && status.unknown.length === 0;
      const findings: Finding[] = [...settingFindings(settingsReport(app.config)), ...(await dependencyHealth(app, app.limits.storeKind, { migrationsApplied: current }))];
      if (!current) findings.push(await migrationFinding(app, status));
      let listed: Promise<Workspace[]> | undefined;
      const workspaces = () => (listed ??= listWorkspaces(app));
      for (const c of DATABASE_CHECKS) {
        // A newer svc may have changed any table: nothing this svc reads can be trusted to mean what it did.
        if (status.unknown.length === 0 && status.applied.includes(c.needs)) findings.push(...(await c.run(app, workspaces)));
        else findings.push({ level: 'warn', check: c.check, detail: `skipped: ${status.unknown.length > 0 ? 'this svc cannot read a database a newer svc migrated' : `it reads the tables as ${c.needs} leaves them, not applied yet; run svc doctor again once svc migrate has applied the pending migrations`}` });
      }
      const failed = findings.filter((f) => f.level === 'fail');
      if (failed.length > 0) {
        throw new AppError('doctor_failed', 400, [...findings.map(line), `${failed.length} problem${failed.length === 1 ? '' : 's'} need fixing`].join('\n'), {
          details: { findings },
        });
      }
      out.result({ findings }, () => findings.map(line).join('\n'));
    },
    { migrate: false },
  );
}

/**
 * A database behind this svc: which migrations are pending, and whether svc migrate would apply them now or refuse
 * while daemons serve (db/migrate.ts, the same rule and the same daemons). Newer: what to upgrade.
 */
async function migrationFinding(app: App, status: MigrationStatus): Promise<Finding> {
  if (status.unknown.length > 0) {
    return {
      level: 'fail',
      check: 'migrations',
      detail: `this database was migrated by a newer svc: ${status.unknown.length} migration${status.unknown.length === 1 ? '' : 's'} this svc does not know (${status.unknown.join(', ')}). Upgrade svc here to the version that applied ${status.unknown.length === 1 ? 'it' : 'them'}, or a newer one; this svc neither serves nor changes it`,
    };
  }
  const pending = `${status.pending.length} pending (${status.pending.join(', ')})`;
  const breaking = await breakingMigrations(status.pending);
  const serving = breaking.length > 0 ? await servingDaemons(app.db, app.config) : [];
  if (serving.length > 0) {
    return {
      level: 'fail',
      check: 'migrations',
      detail: `${pending}. svc migrate applies them once every svc daemon serving this database is stopped: it refuses while they serve, since they cannot run beside ${breaking.map((m) => m.name).join(', ')}. Serving now: ${serving.join(', ')} (docs/deployment.md, "Upgrade")`,
    };
  }
  return { level: 'warn', check: 'migrations', detail: `${pending}: svc migrate applies them${breaking.length > 0 ? ' (no svc daemon serves this database now; start none before it has)' : ''}` };
}

/** Which database and config file this command used, what the daemons serve, and where they differ. */
function settingFindings(report: SettingsReport) {
  return [
    { level: 'ok' as const, check: 'database', detail: `${report.database} (${report.databaseChosenBy})` },
    { level: 'ok' as const, check: 'config file', detail: report.configFile ?? `none (looked for ${CONFIG_SEARCH})` },
    ...(report.daemons.length === 0
      ? [{ level: 'ok' as const, check: 'daemon', detail: 'none running on this machine' }]
      : report.daemons.map((d) => ({ level: 'ok' as const, check: `daemon pid ${d.pid}`, detail: `serves ${d.database}${d.baseUrl ? ` at ${d.baseUrl}` : ''} (config file ${d.configFile ?? 'none'})` }))),
    ...report.warnings.map((w) => ({ level: 'warn' as const, check: 'settings', detail: w })),
  ];
}

/** The tables that grow with use, for the operator to see that the cleanup keeps up. */
function sizeFindings(sizes: Awaited<ReturnType<typeof growingTableSizes>>) {
  return [
    { level: 'ok' as const, check: 'database size', detail: formatBytes(sizes.databaseBytes) },
    ...sizes.tables.map((t) => ({ level: 'ok' as const, check: `table ${t.table}`, detail: `${t.rows} row${t.rows === 1 ? '' : 's'}${t.bytes === null ? '' : `, ${formatBytes(t.bytes)}`}` })),
  ];
}
