import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectCleanError, sandbox } from './sandbox.js';

// Port 9 (discard) on loopback: nothing listens, the connection is refused at once.
const UNREACHABLE = 'postgres://svc@127.0.0.1:9/svc';

describe('messages name where a setting came from', () => {
  it('an unreachable database: the hint names database.url in the file that set it, or SVC_DATABASE_URL', async () => {
    const box = await sandbox();
    const file = path.join(box.dir, 'svc.yaml');
    writeFileSync(file, `database:\n  url: ${UNREACHABLE}\n`);
    const fromFile = await box.cli(['workspaces', 'list'], { env: { SVC_DATABASE_URL: '', SVC_CONFIG: file } });
    expectCleanError(fromFile, 1, `error: Cannot reach the database ${UNREACHABLE}: it refused the connection (refused)`);
    expect(fromFile.stderr).toContain(`Check database.url in ${file} and that the server is running.`);
    const fromEnv = await box.cli(['workspaces', 'list'], { env: { SVC_DATABASE_URL: UNREACHABLE } });
    expectCleanError(fromEnv, 1, 'Check SVC_DATABASE_URL and that the server is running.');
  });
});
