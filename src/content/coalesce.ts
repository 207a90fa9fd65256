/**
 * A read that every caller gets fresh, shared by bursts: callers of one event-loop turn share
 * one read that starts after the last of them arrived (at setImmediate), so it sees every change
 * committed before any of them asked. A caller arriving once that read has started gets the next
 * one. Reads of successive turns may overlap (the pool bounds them), so a caller waits about one
 * read, not a read in flight plus its own.
 */
export class FreshRead<T> {
  private pending: Promise<T> | null = null;

  constructor(private readonly read: () => Promise<T>) {}

  get(): Promise<T> {
    if (!this.pending) {
      this.pending = new Promise<T>((resolve, reject) => {
        setImmediate(() => {
          this.pending = null;
          this.read().then(resolve, reject);
        });
      });
    }
    return this.pending;
  }
}

/** A burst this large means a busy daemon: the next read waits one more event-loop turn for more callers. */
const BUSY_BURST = 8;

interface Burst<K, V> {
  keys: Set<K>;
  /** performance.now() when its first caller asked, and when its read started. */
  since: number;
  started: number;
  /** Answered (by its own read or a later one): a burst still reading but answered holds nobody. */
  answered?: boolean;
  /** How many callers asked. */
  callers: number;
  promise: Promise<Map<K, V>>;
  resolve(values: Map<K, V>): void;
  reject(err: unknown): void;
}

/**
 * FreshRead for keyed values read together, one read at a time: the keys asked for in one burst
 * are read by one read (one statement for every workspace of the burst) that starts after the
 * last of them arrived, so it sees every change committed before any of them asked. Callers
 * arriving while a read runs form the next burst, whose read starts once that one ended: a
 * caller waits for at most the read in flight and its own, and a busy daemon reads once per
 * round trip instead of once per event-loop turn (docs/performance.md). `read` gets how long the
 * burst has waited already, so a deadline can count from the first caller's arrival. Every
 * caller of a burst gets the same map; a key the read did not find is absent from it.
 *
 * A read still running `patienceMs` after it started (a silent connection) no longer holds the
 * next burst: that one starts a read of its own, with the stuck bursts' keys too, and whichever
 * read answers first answers them (both started after they asked). With no caller since (a lone
 * request), the stuck bursts get that read all the same. At most `maxReads` run at once.
 *
 * After a burst of BUSY_BURST callers or more (a busy daemon), the next read starts one
 * event-loop turn later than it could: the requests read from the sockets in that turn join it.
 * On PostgreSQL under load that halves the reads for a turn of waiting, and costs less CPU per
 * request with a lower p99 (docs/performance.md); a quiet daemon's bursts are smaller
 * and wait for nothing.
 */
export class FreshBatch<K, V> {
  private next: Burst<K, V> | null = null;
  /** Callers of the burst whose read started last. */
  private lastCallers = 0;
  /** Bursts whose read is running, oldest first. */
  private readonly reading: Array<Burst<K, V>> = [];
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly read: (keys: K[], waitedMs: number) => Promise<Map<K, V>>,
    private readonly patienceMs = Infinity,
    private readonly maxReads = 2,
  ) {}

  get(key: K): Promise<Map<K, V>> {
    if (!this.next) {
      this.next = this.burst();
      this.schedule();
    }
    this.next.keys.add(key);
    this.next.callers++;
    return this.next.promise;
  }

  private burst(): Burst<K, V> {
    const burst = { keys: new Set<K>(), since: performance.now(), started: 0, callers: 0 } as Burst<K, V>;
    burst.promise = new Promise<Map<K, V>>((resolve, reject) => {
      burst.resolve = (values) => {
        burst.answered = true;
        resolve(values);
      };
      burst.reject = (err) => {
        burst.answered = true;
        reject(err);
      };
    });
    return burst;
  }

  /** The next burst starts at the end of this turn when no read runs, else once the newest read outlived patienceMs. */
  private schedule(): void {
    const newest = this.reading.at(-1);
    const wait = newest ? newest.started + this.patienceMs - performance.now() : 0;
    if (wait <= 0) setImmediate(this.lastCallers >= BUSY_BURST ? this.startNextTurn : this.start);
    else if (this.reading.length < this.maxReads && !this.timer && wait !== Infinity) this.timer = setTimeout(this.impatient, Math.ceil(wait));
  }

  private readonly startNextTurn = (): void => {
    setImmediate(this.start);
  };

  private readonly impatient = (): void => {
    this.timer = null;
    // No caller since the read got stuck: its callers still get another read (one nobody else awaits, so its failure is nobody's).
    if (!this.next && this.reading.some((b) => !b.answered)) {
      this.next = this.burst();
      this.next.promise.catch(() => undefined);
    }
    this.start();
  };

  private readonly start = (): void => {
    const burst = this.next;
    const newest = this.reading.at(-1);
    if (!burst || (newest && this.reading.length >= this.maxReads)) return; // a read's end schedules it
    if (newest && performance.now() - newest.started < this.patienceMs) {
      // Early: Node counts a timer from the event loop's time, read when the turn began, so a timer
      // set late in a long turn (a loaded machine) fires that much early. Wait the rest.
      this.schedule();
      return;
    }
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.next = null;
    const stuck = [...this.reading];
    const keys = new Set(burst.keys);
    for (const b of stuck) for (const k of b.keys) keys.add(k);
    burst.started = performance.now();
    this.lastCallers = burst.callers;
    this.reading.push(burst);
    // Should this read hang, its callers get another at patienceMs, whether or not anyone else asks by then.
    if (this.reading.length < this.maxReads && this.patienceMs !== Infinity) this.timer = setTimeout(this.impatient, Math.ceil(this.patienceMs));
    // A read that throws at once still ends, and lets the next burst start.
    new Promise<Map<K, V>>((resolve) => resolve(this.read([...keys], burst.started - burst.since)))
      .then((values) => {
        for (const b of [burst, ...stuck]) b.resolve(values); // an answered burst ignores a second answer
      }, burst.reject)
      .finally(() => {
        this.reading.splice(this.reading.indexOf(burst), 1);
        if (this.next) this.schedule();
        else if (this.timer && !this.reading.some((b) => !b.answered)) {
          clearTimeout(this.timer);
          this.timer = null;
        }
      });
  };
}

/** Concurrent callers for the same key share one computation (cache fills). */
export class SingleFlight<T> {
  private readonly inFlight = new Map<string, Promise<T>>();

  run(key: string, fn: () => Promise<T>): Promise<T> {
    const existing = this.inFlight.get(key);
    if (existing) return existing;
    const p = fn().finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, p);
    return p;
  }
}
