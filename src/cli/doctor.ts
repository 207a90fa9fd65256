import type { Command } from 'commander';
import { AppError } from '../errors.js';
import { scheduleHealth } from '../publishing/failures.js';
import { webhookHealth } from '../webhooks/health.js';
import { listWorkspaces } from '../workspaces/service.js';
import { act } from './harness.js';
import type { Io } from './io.js';

const MARK = { ok: 'ok  ', warn: 'WARN', fail: 'FAIL' } as const;

/** `svc doctor`: checks what needs an operator's attention; exits 1 when something has failed. */
export function registerDoctor(program: Command, io: Io): void {
  program
    .command('doctor')
    .description('check the daemon and the webhooks; exits 1 when something needs fixing')
    .action(
      act(io, async ({ app, out }) => {
        const workspaces = await listWorkspaces(app);
        const findings = [
          { level: 'ok' as const, check: 'database', detail: `${app.config.database.client} reachable, migrations applied` },
          ...(await webhookHealth(app, workspaces)),
          ...(await scheduleHealth(app, new Map(workspaces.map((w) => [w.id, w.name])))),
        ];
        const failed = findings.filter((f) => f.level === 'fail');
        if (failed.length > 0) {
          throw new AppError('doctor_failed', 400, [...findings.map((f) => `${MARK[f.level]}  ${f.check}: ${f.detail}`), `${failed.length} problem${failed.length === 1 ? '' : 's'} need fixing`].join('\n'), {
            details: { findings },
          });
        }
        out.result({ findings }, () => findings.map((f) => `${MARK[f.level]}  ${f.check}: ${f.detail}`).join('\n'));
      }),
    );
}
