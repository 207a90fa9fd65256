/** One measured line of `npm run bench` (also the JSON written by --out). */
export interface BenchResult {
  name: string;
  reqPerSec: number;
  p50Ms: number;
  p99Ms: number;
  /** What the figure is compared with: the bare node:http server, or the small dataset for flatness lines. */
  baselineReqPerSec: number;
  /** reqPerSec / baselineReqPerSec. */
  ratio: number;
  /** The baseline's p99 (the bare server's), when it was measured under load like svc. */
  baselineP99Ms?: number;
  /** The serving processes' CPU time (user + system) over the requests they answered, in microseconds. */
  cpuUsPerReq?: number;
  baselineCpuUsPerReq?: number;
  /**
   * svc's p99 and CPU per request over the baseline's, when the two ran alternately: the median of
   * the rounds' ratios (each round's pair saw the same machine), as `ratio` is for req/s. Absent:
   * the ratio of the two figures.
   */
  p99Ratio?: number;
  cpuRatio?: number;
}

export interface BenchOptions {
  quick: boolean;
}
