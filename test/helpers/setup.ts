import { afterAll } from 'vitest';
import { runAfterFile } from './cleanup.js';
import net from 'node:net';

// Tests never see the machine's svc settings: an operator's SVC_* (a production database URL)
// must not reach a test's daemon or CLI. SVC_TEST_* are the suite's own switches.
for (const name of Object.keys(process.env)) {
  if (name.startsWith('SVC_') && !name.startsWith('SVC_TEST_')) delete process.env[name];
}

// Tests talk to loopback only: any other outbound connection fails the test. This file runs
// before each test file: where one process runs several, connect is wrapped once.
const LOOPBACK_ONLY = Symbol.for('svc.test.loopbackOnly');
const socket = net.Socket.prototype as net.Socket & { [LOOPBACK_ONLY]?: true };
if (!socket[LOOPBACK_ONLY]) {
  socket[LOOPBACK_ONLY] = true;
  const original = socket.connect;
  socket.connect = function (this: net.Socket, ...args: any[]) {
    const opts = typeof args[0] === 'object' && args[0] !== null ? args[0] : { port: args[0], host: args[1] };
    const host: string | undefined = opts.host;
    if (opts.path === undefined && host && !/^(127\.|localhost$|::1$|\[::1\]$|::ffff:127\.)/.test(host)) {
      throw new Error(`Test tried to reach ${host}: only loopback is allowed in tests`);
    }
    return original.apply(this, args as never);
  } as typeof original;
}

// What helpers made during this file (daemons, temp dirs, databases) is cleaned up at its end.
afterAll(runAfterFile);
