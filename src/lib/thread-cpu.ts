import { readFileSync, readlinkSync } from 'node:fs';

/** The calling thread's id in the kernel (Linux: /proc/thread-self), for threadCpuMs; undefined elsewhere. */
export function ownThreadId(): number | undefined {
  try {
    return Number(readlinkSync('/proc/thread-self').split('/').pop()) || undefined;
  } catch {
    return undefined;
  }
}

/** /proc counts CPU time in USER_HZ ticks, 100 a second on Linux whatever the kernel's own rate. */
const MS_PER_TICK = 10;

/** CPU time (user and system, in ms) a thread of this process has used so far; undefined when it cannot be read. */
export function threadCpuMs(tid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    // After the name in parentheses (which may hold spaces): state is field 3, utime 14, stime 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * MS_PER_TICK;
  } catch {
    return undefined;
  }
}
