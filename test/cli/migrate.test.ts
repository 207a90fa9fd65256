import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { sandbox } from './sandbox.js';

const NAMES = readdirSync(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../migrations'))
  .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))
  .map((f) => f.replace(/\.ts$/, ''))
  .sort();

describe('svc migrate', () => {
  it('--status lists pending, migrate applies them once, then is a no-op', async () => {
    const box = await sandbox();
    expect(await box.json(['migrate', '--status'])).toEqual({ applied: [], pending: NAMES, unknown: [] });
    const human = await box.cli(['migrate', '--status']);
    expect(human.stdout).toBe(`${NAMES.map((n) => `pending  ${n}`).join('\n')}\n0 applied, ${NAMES.length} pending\n`);

    expect(await box.json(['migrate'])).toEqual({ applied: NAMES });
    expect(await box.json(['migrate'])).toEqual({ applied: [] });
    expect((await box.cli(['migrate'])).stdout).toBe('Already up to date\n');
    expect(await box.json(['migrate', '--status'])).toEqual({ applied: NAMES, pending: [], unknown: [] });
  });

  it('--rollback undoes the last batch', async () => {
    const box = await sandbox();
    await box.json(['migrate']);
    expect(await box.json(['migrate', '--rollback'])).toEqual({ rolledBack: [...NAMES].reverse() });
    expect((await box.cli(['migrate', '--rollback'])).stdout).toBe('Nothing to roll back\n');
    expect((await box.cli(['migrate'])).stdout).toBe(`${NAMES.map((n) => `applied  ${n}`).join('\n')}\n`);
  });
});
