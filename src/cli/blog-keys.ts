import type { Command } from 'commander';
import { type NewBlogKey, generateBlogKey, regenerateBlogKey, revokeBlogKey, showBlogKey } from '../auth/blog-keys.js';
import { confirm } from './ask.js';
import { YES_OPTION } from './destructive.js';
import { act, servedBaseUrl, WORKSPACE_OPTION } from './harness.js';
import type { Io, Output } from './io.js';

/** `svc blog-key generate|regenerate|show|revoke`: the read-only key of the content API. */
export function registerBlogKeys(program: Command, io: Io): void {
  const group = program.command('blog-key').alias('blog-keys').description('the read-only blog key of the content API (headless connector)');

  group
    .command('generate')
    .description('create the blog key (and the headless connector); the key is printed once')
    .option(...WORKSPACE_OPTION)
    .action(
      act<{ workspace?: string }>(io, async ({ app, out, workspace }) => {
        const created = await generateBlogKey(app, await workspace());
        printKey(out, created, 'Created', servedBaseUrl(app.config, out));
      }),
    );

  group
    .command('regenerate')
    .description('replace the blog key; the old key stops working at once')
    .option(...WORKSPACE_OPTION)
    .option(...YES_OPTION)
    .action(
      act<{ workspace?: string; yes?: boolean }>(io, async ({ app, opts, out, workspace }) => {
        const ws = await workspace();
        await confirm(io, opts.yes, `Replace the blog key of ${ws.name}? Sites using the old key get 401 at once.`);
        printKey(out, await regenerateBlogKey(app, ws), 'Regenerated', servedBaseUrl(app.config, out));
      }),
    );

  group
    .command('show')
    .description('show which blog key is active (its last characters; the key itself is not stored)')
    .option(...WORKSPACE_OPTION)
    .action(
      act<{ workspace?: string }>(io, async ({ app, out, workspace }) => {
        const info = await showBlogKey(app, await workspace());
        const endpoint = `${servedBaseUrl(app.config, out)}/api/v1/content`;
        out.result({ ...info, endpoint }, () => [`Blog key of ${info.workspace}: ${info.hint}`, `  created:  ${info.createdAt}`, `  endpoint: ${endpoint}`].join('\n'),
        );
      }),
    );

  group
    .command('revoke')
    .description('delete the blog key; the content API refuses it at once')
    .option(...WORKSPACE_OPTION)
    .option(...YES_OPTION)
    .action(
      act<{ workspace?: string; yes?: boolean }>(io, async ({ app, opts, out, workspace }) => {
        const ws = await workspace();
        await confirm(io, opts.yes, `Revoke the blog key of ${ws.name}? Sites using it get 401 at once.`);
        const info = await revokeBlogKey(app, ws);
        out.result({ ...info, revoked: true }, () => `Revoked the blog key of ${info.workspace} (${info.hint})`);
      }),
    );

}

function printKey(out: Output, k: NewBlogKey, verb: string, baseUrl: string): void {
  out.note('Store this key now, on the server side only: it is shown once and only its hash is kept.');
  out.result({ ...k, endpoint: `${baseUrl}/api/v1/content` }, () =>
    `${verb} the blog key of ${k.workspace}:\n\n  ${k.key}\n\nSend it as "Authorization: Bearer <key>" to ${baseUrl}/api/v1/content`,
  );
}
