import type { Io } from './io.js';

/**
 * A one-line progress bar on stderr, drawn only on a terminal and for more than one item.
 * Redrawn at most once per whole percent, so 5,000 items cost 100 writes, not 5,000.
 */
export function progressBar(io: Io, total: number, label: string) {
  const enabled = io.interactive && !io.json && total > 1;
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
  if (enabled) draw();
  return {
    tick() {
      this.update(count + 1);
    },
    update(done: number) {
      count = Math.min(done, total);
      if (enabled) draw();
    },
    done() {
      if (enabled) io.stderr.write('\n');
    },
  };
}
