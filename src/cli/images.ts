import path from 'node:path';
import type { Command } from 'commander';
import { type StoredImage, addImage, getImage, imageUsers, listImages, readImageFile, removeImage } from '../images/service.js';
import { confirm } from './ask.js';
import { YES_OPTION } from './destructive.js';
import { act, intOption, servedCtx, WORKSPACE_OPTION } from './harness.js';
import { type Io, table } from './io.js';

export function registerImages(program: Command, io: Io): void {
  const images = program.command('images').alias('image').description('the image store: images svc serves at /media/<hash>.<ext> for articles');

  images
    .command('add')
    .description('store image files (JPEG, PNG, GIF, WebP, AVIF, SVG) and print the URL of each')
    .argument('<files...>')
    .option(...WORKSPACE_OPTION)
    .action(
      act<{ workspace?: string }>(io, async ({ app, args, out, workspace }) => {
        const ws = await workspace();
        const ctx = servedCtx(app, out);
        const added: Array<StoredImage & { file: string; added: boolean }> = [];
        for (const file of args) {
          const bytes = await readImageFile(path.resolve(io.cwd, file), ctx.config.images.maxBytes);
          added.push({ file, ...(await addImage(ctx, ws, bytes, file)) });
        }
        out.result({ images: added }, () => added.map((i) => `${i.url}${i.added ? '' : ' (stored already)'}`).join('\n'));
      }),
    );

  images
    .command('list')
    .description('the stored images, newest first')
    .option(...WORKSPACE_OPTION)
    .option('--limit <n>', 'how many (1-500, default 100)')
    .option('--offset <n>', 'skip this many')
    .action(
      act<{ workspace?: string; limit?: string; offset?: string }>(io, async ({ app, opts, out, workspace }) => {
        const page = await listImages(servedCtx(app, out), await workspace(), {
          limit: opts.limit === undefined ? undefined : intOption(opts.limit, '--limit', 1, 500),
          offset: opts.offset === undefined ? undefined : intOption(opts.offset, '--offset', 0),
        });
        out.result(page, () => {
          const rows = page.images.map((i) => ({ url: i.url, type: i.contentType, bytes: i.size, size: i.width && i.height ? `${i.width}x${i.height}` : '', created: i.createdAt }));
          return `${table(rows, ['url', 'type', 'bytes', 'size', 'created'])}\n${page.images.length} shown of ${page.total}`;
        });
      }),
    );

  images
    .command('remove')
    .description('remove a stored image (articles that show it show a broken image)')
    .argument('<image>', 'its URL or hash')
    .option(...WORKSPACE_OPTION)
    .option(...YES_OPTION)
    .action(
      act<{ workspace?: string; yes?: boolean }>(io, async ({ app, args, opts, out, workspace }) => {
        const ws = await workspace();
        const image = await getImage(app, ws, args[0]);
        const users = await imageUsers(app, ws, image.hash);
        const shown = users.length === 0 ? 'no article uses it' : `used by ${users.length} article${users.length === 1 ? '' : 's'}: ${users.slice(0, 5).join(', ')}${users.length > 5 ? ', ...' : ''}`;
        await confirm(io, opts.yes, `Remove image ${image.hash}.${image.ext} from ${ws.name} (${shown})?`);
        const removed = await removeImage(app, ws, image.hash);
        out.result({ removed: { hash: removed.hash, contentType: removed.contentType, size: removed.size }, usedBy: users }, () => `Removed image ${removed.hash}.${removed.ext}${users.length ? ` (${shown})` : ''}`);
      }),
    );
}
