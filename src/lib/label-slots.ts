/**
 * What a metric keeps per series, found by the label values themselves in nested maps: no label
 * string built and hashed per call, as prom-client's inc() and observe() do (about 1 us each on
 * every cached content request). Up to three labels; series listed in the order first seen.
 */
export class LabelSlots<S> {
  private readonly root = new Map<string | number, Map<string | number, Map<string | number, S>>>();
  /** Every series' slot, in the order first seen (prom-client's rendering order). */
  readonly all: S[] = [];

  constructor(
    private readonly labelNames: readonly string[],
    private readonly create: (labels: Record<string, string>) => S,
  ) {}

  get(a: string | number, b: string | number, c: string | number = ''): S {
    let byB = this.root.get(a);
    if (!byB) this.root.set(a, (byB = new Map()));
    let byC = byB.get(b);
    if (!byC) byB.set(b, (byC = new Map()));
    let slot = byC.get(c);
    if (slot === undefined) {
      const values = [a, b, c];
      const labels: Record<string, string> = {};
      this.labelNames.forEach((name, i) => (labels[name] = String(values[i])));
      byC.set(c, (slot = this.create(labels)));
      this.all.push(slot);
    }
    return slot;
  }

  /** Forget every series (a registry's resetMetrics()). */
  clear(): void {
    this.root.clear();
    this.all.length = 0; // the same array: CounterTally's collect hook holds it
  }
}
