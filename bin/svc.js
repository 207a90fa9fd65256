#!/usr/bin/env node
// node-sqlite3 runs queries, and waits out SQLite's busy timeout, on libuv's thread pool, which
// DNS lookups, scrypt and zlib share: 4 threads by default. More threads than database
// connections keep a waiting connection from starving the writer it waits for. Set before the
// pool's first use; an operator's own UV_THREADPOOL_SIZE wins.
process.env.UV_THREADPOOL_SIZE ??= '16';
const { main } = await import('../dist/src/main.js');
main();
