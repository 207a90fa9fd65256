import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { processIo } from '../../src/cli/io.js';
import { buildProgram } from '../../src/cli/program.js';
import { sandbox } from './sandbox.js';

// A command loads only its own group of commands (cli/program.ts): help, which lists them, must
// still see every one, whichever way it is asked for.
describe('help lists every command', () => {
  it('svc --help and svc help list every group; svc <group> --help and svc help <group> list every subcommand', async () => {
    const box = await sandbox();
    const table = await buildProgram(processIo());
    const listed = (text: string, names: string[]) => names.filter((n) => !new RegExp(`\\n  ${n}\\b`).test(text));
    const groups = table.commands.map((c) => c.name());
    expect(groups.length).toBeGreaterThan(15);
    for (const args of [['--help'], ['-h'], ['help']]) {
      const r = await box.cli(args);
      expect(r.code, args.join(' ')).toBe(0);
      expect(listed(r.stdout, groups), `svc ${args.join(' ')} leaves out`).toEqual([]);
    }
    for (const group of table.commands) {
      const subcommands = group.commands.map((c: Command) => c.name());
      for (const args of [[group.name(), '--help'], ['help', group.name()], ...group.aliases().map((a) => [a, '--help'])]) {
        const r = await box.cli(args);
        expect(r.code, args.join(' ')).toBe(0);
        expect(r.stdout, args.join(' ')).toContain(`Usage: svc ${group.name()}`);
        expect(listed(r.stdout, subcommands), `svc ${args.join(' ')} leaves out`).toEqual([]);
      }
    }
  });
});
