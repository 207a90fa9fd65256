import type { Metric, Registry } from 'prom-client';
import { LabelSlots } from './label-slots.js';

interface Slot {
  /** The label values, one object per series: prom-client caches their rendering by identity. */
  labels: Record<string, string>;
  /** Observations per bucket (not cumulative); the last counts those above every bound. */
  counts: number[];
  sum: number;
  count: number;
}

/**
 * A Prometheus histogram over two labels, observed with plain numbers per series (LabelSlots)
 * instead of prom-client's `observe()`. Registered in a prom-client registry like any of its metrics, it renders
 * exactly what a prom-client Histogram with the same observations renders (series in the order
 * first observed, cumulative buckets, +Inf, _sum, _count: test/lib/duration-histogram.test.ts).
 */
export class DurationHistogram {
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  private readonly slots: LabelSlots<Slot>;

  constructor(
    readonly name: string,
    readonly help: string,
    labelNames: readonly [string, string],
    private readonly buckets: readonly number[],
    registry: Registry,
  ) {
    this.slots = new LabelSlots(labelNames, (labels) => ({ labels, counts: new Array<number>(buckets.length + 1).fill(0), sum: 0, count: 0 }));
    // prom-client reads a registered metric through get()/getForPromString() only.
    registry.registerMetric(this as unknown as Metric);
  }

  observe(a: string, b: string, seconds: number): void {
    const slot = this.slots.get(a, b);
    let i = 0;
    while (i < this.buckets.length && seconds > this.buckets[i]) i++;
    slot.counts[i]++;
    slot.sum += seconds;
    slot.count++;
  }

  /** As prom-client's reset(), called by the registry's resetMetrics(): no series until observed again. */
  reset(): void {
    this.slots.clear();
  }

  /** The series as prom-client's registry renders them (labels of a series shared by its lines). */
  async getForPromString() {
    const bucket = `${this.name}_bucket`;
    const values: Array<{ value: number; labels: Record<string, string | number>; sharedLabels: Record<string, string>; metricName: string; exemplar?: null }> = [];
    for (const s of this.slots.all) {
      let cumulative = 0;
      this.buckets.forEach((le, i) => {
        cumulative += s.counts[i];
        values.push({ labels: { le }, sharedLabels: s.labels, value: cumulative, metricName: bucket, exemplar: null });
      });
      values.push({ labels: { le: '+Inf' }, sharedLabels: s.labels, value: s.count, metricName: bucket, exemplar: null });
      values.push({ labels: {}, sharedLabels: s.labels, value: s.sum, metricName: `${this.name}_sum` });
      values.push({ labels: {}, sharedLabels: s.labels, value: s.count, metricName: `${this.name}_count` });
    }
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }

  /** As prom-client's get(): each value's labels include its series' labels. */
  async get() {
    const data = await this.getForPromString();
    return { ...data, values: data.values.map(({ sharedLabels, labels, ...v }) => ({ ...v, labels: { ...labels, ...sharedLabels } })) };
  }
}
