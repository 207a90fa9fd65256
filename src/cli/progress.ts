import type { Io } from './io.js';

/** A one-line progress bar on stderr, drawn only on a terminal and for more than one item. */
export function progressBar(io: Io, total: number, label: string) {
  const enabled = io.interactive && total > 1;
  let count = 0;
  const draw = () => {
    const width = 30;
    const filled = Math.round((count / total) * width);
    io.stderr.write(`\r${label} [${'#'.repeat(filled)}${' '.repeat(width - filled)}] ${count}/${total}`);
  };
  if (enabled) draw();
  return {
    tick() {
      count++;
      if (enabled) draw();
    },
    done() {
      if (enabled) io.stderr.write('\n');
    },
  };
}
