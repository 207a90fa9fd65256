// Preloaded into a svc subprocess (node --import): appends the URL of every module the process
// loads through the ES module loader to the file named by SVC_TEST_LOADS, one per line, so a test
// can tell which packages a command loaded. Packages' own require() calls are not seen; the
// import that loads a package is.
import { register } from 'node:module';

register(
  'data:text/javascript,' +
    encodeURIComponent(`
import { appendFileSync } from 'node:fs';
export async function load(url, context, next) {
  if (process.env.SVC_TEST_LOADS) appendFileSync(process.env.SVC_TEST_LOADS, url + '\\n');
  return next(url, context);
}`),
);
