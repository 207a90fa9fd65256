import { Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { DurationHistogram } from '../../src/lib/duration-histogram.js';

const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

describe('DurationHistogram (lib/duration-histogram.ts)', () => {
  it('renders exactly what a prom-client Histogram renders for the same observations', async () => {
    const ours = new Registry();
    const theirs = new Registry();
    const h = new DurationHistogram('svc_t_seconds', 'A test "histogram"\nwith two lines', ['method', 'route'], BUCKETS, ours);
    const p = new Histogram({ name: 'svc_t_seconds', help: 'A test "histogram"\nwith two lines', labelNames: ['method', 'route'], buckets: BUCKETS, registers: [theirs] });
    // Series first seen in an order the label values would not sort to; values on bounds, between, above all, and zero.
    const seen: Array<[string, string, number]> = [
      ['GET', '/b', 0.0004], ['POST', '/a', 0.001], ['GET', '/a', 0.003], ['GET', '/b', 0.0025], ['GET', '/b', 12],
      ['GET', '/b', 0], ['POST', '/a', 0.7], ['GET', '/a', 10], ['OPTIONS', '/a"quoted\\', 0.02],
    ];
    for (const [m, r, s] of seen) {
      h.observe(m, r, s);
      p.observe({ method: m, route: r }, s);
    }
    expect(await ours.metrics()).toBe(await theirs.metrics());
    expect(await ours.getMetricsAsJSON()).toEqual(await theirs.getMetricsAsJSON());
  });

  it("is emptied by the registry's resetMetrics(), as prom-client's are, and counts afresh after", async () => {
    const ours = new Registry();
    const theirs = new Registry();
    const h = new DurationHistogram('svc_t_seconds', 'help', ['method', 'route'], BUCKETS, ours);
    const p = new Histogram({ name: 'svc_t_seconds', help: 'help', labelNames: ['method', 'route'], buckets: BUCKETS, registers: [theirs] });
    h.observe('GET', '/a', 0.003);
    p.observe({ method: 'GET', route: '/a' }, 0.003);
    ours.resetMetrics();
    theirs.resetMetrics();
    expect(await ours.metrics()).toBe(await theirs.metrics());
    h.observe('POST', '/b', 0.2);
    p.observe({ method: 'POST', route: '/b' }, 0.2);
    h.observe('GET', '/a', 2);
    p.observe({ method: 'GET', route: '/a' }, 2);
    expect(await ours.metrics()).toBe(await theirs.metrics());
  });

  it('renders nothing but its help and type before the first observation, as prom-client does', async () => {
    const ours = new Registry();
    const theirs = new Registry();
    new DurationHistogram('svc_t_seconds', 'help', ['method', 'route'], BUCKETS, ours);
    new Histogram({ name: 'svc_t_seconds', help: 'help', labelNames: ['method', 'route'], buckets: BUCKETS, registers: [theirs] });
    expect(await ours.metrics()).toBe(await theirs.metrics());
  });
});
