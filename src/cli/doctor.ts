import type { Command } from 'commander';
import { dependencyHealth } from '../limits/dependency-health.js';
import { growingTableSizes } from '../jobs/table-sizes.js';
import { AppError } from '../errors.js';
import { scheduleHealth } from '../publishing/failures.js';
import { webhookHealth } from '../webhooks/health.js';
import { listWorkspaces } from '../workspaces/service.js';
import { formatBytes } from './backup.js';
import { act } from './harness.js';
import type { Io } from './io.js';
import { escapeLine } from './terminal-text.js';

const MARK = { ok: 'ok  ', warn: 'WARN', fail: 'FAIL' } as const;

// Details carry text from elsewhere (host names of other machines, URLs): escaped, one line each.
const line = (f: { level: keyof typeof MARK; check: string; detail: string }) => escapeLine(`${MARK[f.level]}  ${f.check}: ${f.detail}`);

/** `svc doctor`: checks what needs an operator's attention; exits 1 when something has failed. */
export function registerDoctor(program: Command, io: Io): void {
  program
    .command('doctor')
    .description('check the database and Redis (each within its deadline), the daemons (which are running, which are gone), the webhooks and who holds their events; exits 1 when something needs fixing')
    .action(
      act(io, async ({ app, out }) => {
        const workspaces = await listWorkspaces(app);
        const findings = [
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
      }),
    );
}

/** The tables that grow with use, for the operator to see that the cleanup keeps up. */
function sizeFindings(sizes: Awaited<ReturnType<typeof growingTableSizes>>) {
  return [
    { level: 'ok' as const, check: 'database size', detail: formatBytes(sizes.databaseBytes) },
    ...sizes.tables.map((t) => ({ level: 'ok' as const, check: `table ${t.table}`, detail: `${t.rows} row${t.rows === 1 ? '' : 's'}${t.bytes === null ? '' : `, ${formatBytes(t.bytes)}`}` })),
  ];
}
