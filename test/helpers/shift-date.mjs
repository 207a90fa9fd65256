// Preloaded into a svc subprocess (node --import, TestClock.childEnv): shifts the process's Date
// by SVC_TEST_DATE_OFFSET_MS, so a child running the real CLI on the system clock agrees with the
// test's TestClock on what "now" is. Only Date moves: timers and performance.now() run as before.
const offset = Number(process.env.SVC_TEST_DATE_OFFSET_MS ?? 0);

if (offset) {
  const RealDate = Date;
  const now = () => RealDate.now() + offset;
  globalThis.Date = new Proxy(RealDate, {
    construct: (target, args, newTarget) => Reflect.construct(target, args.length === 0 ? [now()] : args, newTarget),
    apply: () => new RealDate(now()).toString(),
    get: (target, key, receiver) => (key === 'now' ? now : Reflect.get(target, key, receiver)),
  });
}
