import type { Command } from 'commander';
import { dependencyHealth } from '../limits/dependency-health.js';
import { growingTableSizes } from '../jobs/table-sizes.js';
import { AppError } from '../errors.js';
import { scheduleHealth } from '../publishing/failures.js';
import { webhookHealth } from '../webhooks/health.js';
import { listWorkspaces } from '../workspaces/service.js';
import { formatBytes } from './backup.js';
import { act, CONFIG_SEARCH, configFor } from './harness.js';
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
    .description('check the database and Redis (each within its deadline), the daemons (which are running, which are gone), the webhooks and who holds their events; exits 1 when something needs fixing')
    .action(async (...params: unknown[]) => {
      // No database where the settings point: the settings and that, as findings; nothing created.
      // (A PostgreSQL database without svc's tables is found when act opens it, before migrating.)
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

function doctorAction(io: Io) {
  return act(io, async ({ app, out }) => {
    const workspaces = await listWorkspaces(app);
    const findings = [
      ...settingFindings(settingsReport(app.config)),
      ...(await dependencyHealth(app, app.limits.storeKind)),
      ...(await webhookHealth(app, workspaces)),
      ...(await scheduleHealth(app, new Map(workspaces.map((w) => [w.id, w.name])))),
      ...sizeFindings(await growingTableSizes(app.db)),
    ];
    const failed = findings.filter((f) => f.level === 'fail');
    if (failed.length > 0) {
      throw new AppError('doctor_failed', 400, [...findings.map(line), `${failed.length} problem${failed.length === 1 ? '' : 's'} need fixing`].join('\n'), {
        details: { findings },
      });
    }
    out.result({ findings }, () => findings.map(line).join('\n'));
    });
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
