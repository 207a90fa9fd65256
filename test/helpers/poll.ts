/** Call fn until done(value) or the time is up (then the last value is returned for the assertion to fail on). */
export async function poll<T>(fn: () => Promise<T>, done: (v: T) => boolean, ms = 15_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (done(v) || Date.now() > end) return v;
    await new Promise((r) => setTimeout(r, 25));
  }
}
