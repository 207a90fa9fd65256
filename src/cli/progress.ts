import type { Io } from './io.js';

/** What a bulk command says when it is interrupted: per phase, how much is written for good. */
export interface Resumable {
  /** How a rerun finishes the job, e.g. "articles already imported are skipped". */
  rerun: string;
}

interface Phase {
  label: string;
  count: number;
  total: number;
  rerun: string;
  /** The whole command's guard (interruptionGuard): reported only when no phase has started. */
  guard?: boolean;
}

/**
 * A one-line progress bar on stderr, drawn only when stderr is a terminal and for more than one item (never
 * with --json). Redrawn at most once per whole percent, so 5,000 items cost 100 writes, not 5,000.
 *
 * `resumable`: the work is committed in batches and `update(n)` is called once n items are
 * written for good. Then Ctrl-C (SIGINT) while it runs says what was written and that rerunning
 * the command finishes the job, and the process still ends as interrupted (exit 130); the batch
 * in flight is rolled back by the database. Without it SIGINT keeps its default.
 */
export function progressBar(io: Io, total: number, label: string, resumable?: Resumable) {
  const enabled = Boolean(io.progress) && !io.json && total > 1;
  let count = 0;
  let drawn = -1;
  const draw = () => {
    const percent = Math.floor((count / total) * 100);
    if (percent === drawn && count !== total) return;
    drawn = percent;
    const width = 30;
    const filled = Math.round((count / total) * width);
    io.stderr.write(`\r${label} [${'#'.repeat(filled)}${' '.repeat(width - filled)}] ${count}/${total}`);
  };
  if (enabled) {
    draw();
    barOnScreen = true;
  }
  const phase: Phase | undefined = resumable ? { label, count: 0, total, rerun: resumable.rerun } : undefined;
  if (phase) interruptible(io, phase);
  return {
    tick() {
      this.update(count + 1);
    },
    update(done: number) {
      count = Math.min(done, total);
      if (phase) phase.count = count;
      if (enabled) draw();
    },
    done() {
      if (phase) finished(phase);
      if (enabled) {
        io.stderr.write('\n');
        barOnScreen = false;
      }
    },
  };
}

const active = new Set<Phase>();
/** Phases finished while a guard is up: a Ctrl-C between two phases still reports them. */
const completed: Phase[] = [];
let onSigint: (() => void) | undefined;
/**
 * A bar is drawn and its line not ended: the report on SIGINT starts on a line of its own. Not the
 * phase's own flag: the handler is installed once, by whichever phase or guard came first.
 */
let barOnScreen = false;

/**
 * Ctrl-C anywhere in a bulk command says what was written, even nothing yet (reading the files,
 * checking them) or between two phases, and that rerunning finishes the job; the phases' bars
 * report their own counts. Call `done()` when the command ends.
 */
export function interruptionGuard(io: Io, label: string, resumable: Resumable): { done(): void } {
  const guard: Phase = { label, count: 0, total: 0, rerun: resumable.rerun, guard: true };
  interruptible(io, guard);
  return {
    done() {
      completed.length = 0;
      finished(guard);
    },
  };
}

const n = (x: number) => x.toLocaleString('en-US');

/** The report printed on SIGINT: what each running phase wrote, and how to finish. */
export function interruptedText(all: Iterable<Phase>): string {
  const started = [...all].filter((p) => !p.guard);
  const phases = started.length > 0 ? started : [...all];
  const lines = phases.map((p) =>
    p.guard ? `${p.label}: nothing written yet.` : `${p.label}: ${n(p.count)} of ${n(p.total)} written before the interruption (each batch is written whole or not at all).`,
  );
  const rerun = [...new Set([...phases].map((p) => p.rerun))].join('; ');
  return `interrupted: ${lines.join('\n')}\nRun the same command again to finish the job: ${rerun}.\n`;
}

function interruptible(io: Io, phase: Phase): void {
  active.add(phase);
  if (onSigint) return;
  onSigint = () => {
    const phases = [...completed, ...active];
    active.clear();
    completed.length = 0;
    process.removeListener('SIGINT', onSigint!);
    onSigint = undefined;
    if (io.json) {
      const done = phases.filter((p) => !p.guard).map((p) => ({ phase: p.label, written: p.count, total: p.total }));
      io.stdout.write(JSON.stringify({ error: { code: 'interrupted', message: interruptedText(phases).trim(), done } }, null, 2) + '\n');
    } else {
      io.stderr.write(`${barOnScreen ? '\n' : ''}${interruptedText(phases)}`);
    }
    // With no listener left, the signal's default action ends the process as interrupted (130).
    process.kill(process.pid, 'SIGINT');
  };
  process.on('SIGINT', onSigint);
}

function finished(phase: Phase): void {
  active.delete(phase);
  if (!phase.guard && [...active].some((p) => p.guard)) completed.push(phase);
  if (active.size === 0 && onSigint) {
    process.removeListener('SIGINT', onSigint);
    onSigint = undefined;
  }
}
