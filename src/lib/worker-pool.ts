import { Worker } from 'node:worker_threads';
import { threadCpuMs } from './thread-cpu.js';

/** Why a task did not finish: it ran past the deadline, it threw, its worker died, or no worker could start. */
export class TaskFailure extends Error {
  constructor(
    readonly reason: 'timeout' | 'threw' | 'died' | 'start',
    message: string,
  ) {
    super(message);
  }
}

export interface WorkerPoolOptions {
  /** The worker's module (the contract is on WorkerPool). */
  file: URL;
  size: number;
  /**
   * A task that used more CPU time than this is stopped: its worker is terminated and replaced.
   * Where a worker's CPU time cannot be read, or once a task has waited STARVED_FACTOR times this
   * long, the time it ran counts instead.
   */
  timeoutMs: number;
  /** Heap of each worker, in MB: a task that needs more ends its worker instead of the process. */
  maxHeapMb?: number;
}

interface Job {
  task: string;
  input: unknown;
  /** The caller holds a lock (run()'s holdingLock). */
  holdingLock: boolean;
  resolve(value: unknown): void;
  reject(err: TaskFailure): void;
}

interface Slot {
  worker: Worker;
  ready: boolean;
  /** The worker's thread id in the kernel, when it told (Linux). */
  tid?: number;
  job?: Job;
  timer?: NodeJS.Timeout;
  /** When the job started, and the worker's CPU time then. */
  startedAt?: number;
  cpuAtStart?: number;
}

/**
 * A task is judged on what it costs, not on how busy the machine is: a worker that a busy machine
 * (or its own lower priority, see render-worker.ts) gave a quarter of a core still gets its whole
 * deadline of CPU time, up to this many times the deadline in all.
 */
const STARVED_FACTOR = 4;

/**
 * A fixed number of worker threads running CPU-bound tasks off the event loop, first come first
 * served. Workers start on first use, and idle ones do not keep the process alive. The deadline
 * of a task counts from when its worker starts it (a worker's own start-up is not counted).
 *
 * The worker's module posts `{ ready: true, tid }` once loaded (`tid`: ownThreadId(), so that
 * the deadline counts the worker's CPU time), then answers each `{ task, input }` with
 * `{ value }` or `{ error }` (a message), one task at a time.
 */
export class WorkerPool {
  private readonly slots = new Set<Slot>();
  private readonly queue: Job[] = [];
  private closed = false;
  /** Tasks handed to a worker so far. */
  started = 0;
  /** The most tasks that ran at once so far (the proof that the workers ran side by side). */
  peak = 0;

  constructor(private readonly options: WorkerPoolOptions) {}

  /**
   * Run a task. `holdingLock`: the caller waits inside a transaction. Its task goes ahead of the
   * others queued (behind other lock holders' only: the deadline counts from a task's start, and
   * the lock would be held while the tasks queued before it, a publish's next batches, run first),
   * and it is stopped at its deadline in wall time, CPU or not.
   */
  run(task: string, input: unknown, { holdingLock = false }: { holdingLock?: boolean } = {}): Promise<unknown> {
    if (this.closed) return Promise.reject(new TaskFailure('died', 'the worker pool is closed'));
    return new Promise((resolve, reject) => {
      const job = { task, input, holdingLock, resolve, reject };
      const at = holdingLock ? this.queue.findIndex((j) => !j.holdingLock) : -1;
      if (at === -1) this.queue.push(job);
      else this.queue.splice(at, 0, job);
      this.pump();
    });
  }

  /** Workers started and ready for a task. */
  get ready(): number {
    return [...this.slots].filter((s) => s.ready).length;
  }

  /** Tasks running now. */
  get running(): number {
    return [...this.slots].filter((s) => s.job).length;
  }

  /** Terminate every worker; queued and running tasks fail. */
  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.splice(0)) job.reject(new TaskFailure('died', 'the worker pool is closed'));
    await Promise.all([...this.slots].map((slot) => this.discard(slot, new TaskFailure('died', 'the worker pool is closed'))));
  }

  private pump(): void {
    for (const slot of this.slots) {
      if (this.queue.length === 0) return;
      if (slot.ready && !slot.job) this.start(slot, this.queue.shift()!);
    }
    const starting = [...this.slots].filter((s) => !s.ready).length;
    for (let n = Math.min(this.queue.length - starting, this.options.size - this.slots.size); n > 0; n--) this.spawn();
  }

  private spawn(): void {
    // The parent's flags are not passed on: some (--input-type, --eval's) stop a worker from starting.
    const worker = new Worker(this.options.file, { execArgv: [], resourceLimits: { maxOldGenerationSizeMb: this.options.maxHeapMb ?? 512 } });
    const slot: Slot = { worker, ready: false };
    this.slots.add(slot);
    worker.on('message', (msg: { ready?: true; tid?: number; value?: unknown; error?: string }) => {
      if (msg.ready) {
        slot.ready = true;
        slot.tid = msg.tid;
        worker.unref();
        this.pump();
        return;
      }
      const job = slot.job;
      if (!job) return;
      clearTimeout(slot.timer);
      slot.job = undefined;
      worker.unref();
      if (msg.error !== undefined) job.reject(new TaskFailure('threw', msg.error));
      else job.resolve(msg.value);
      this.pump();
    });
    worker.on('error', (err) => void this.discard(slot, new TaskFailure('died', err.message)));
    worker.on('exit', () => void this.discard(slot, new TaskFailure('died', 'the worker exited')));
  }

  private start(slot: Slot, job: Job): void {
    slot.job = job;
    this.started++;
    this.peak = Math.max(this.peak, this.running);
    slot.worker.ref();
    slot.startedAt = performance.now();
    slot.cpuAtStart = slot.tid === undefined ? undefined : threadCpuMs(slot.tid);
    this.arm(slot, job, this.options.timeoutMs);
    slot.worker.postMessage({ task: job.task, input: job.input });
  }

  /** Look at the job's costs in `ms`: stop it once it used its deadline of CPU time (or waited too long for any). */
  private arm(slot: Slot, job: Job, ms: number): void {
    slot.timer = setTimeout(() => {
      if (slot.job !== job) return;
      const limit = this.options.timeoutMs;
      const now = slot.cpuAtStart === undefined ? undefined : threadCpuMs(slot.tid!);
      const used = now === undefined ? Infinity : now - slot.cpuAtStart!;
      const waited = performance.now() - slot.startedAt!;
      // The next look comes when the CPU time left would run out, or at the wall-time cap, whichever is first.
      const patience = job.holdingLock ? 1 : STARVED_FACTOR;
      if (used < limit && waited < limit * patience) return this.arm(slot, job, Math.max(Math.min(limit - used, limit * patience - waited), 10));
      const why = used >= limit || job.holdingLock ? `the task ran longer than ${limit} ms` : `the task waited ${STARVED_FACTOR} times its ${limit} ms deadline for the CPU`;
      void this.discard(slot, new TaskFailure('timeout', why));
    }, ms);
  }

  /** Drop the slot (its job, if any, fails with `failure`), and let a new worker take the queue. */
  private async discard(slot: Slot, failure: TaskFailure): Promise<void> {
    if (!this.slots.delete(slot)) return;
    clearTimeout(slot.timer);
    slot.job?.reject(failure);
    slot.job = undefined;
    // A worker that cannot even start would be replaced by another that cannot: the waiting tasks
    // fail with its error instead of waiting for ever, and the next task tries again.
    if (!slot.ready) for (const job of this.queue.splice(0)) job.reject(new TaskFailure('start', `a worker could not start: ${failure.message}`));
    await slot.worker.terminate();
    if (!this.closed) this.pump();
  }
}
