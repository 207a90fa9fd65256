import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { AppError } from '../../errors.js';
import { imageErrors } from '../../images/errors.js';
import { addImage } from '../../images/service.js';
import { advertisedAs, lengthFirst, someText } from '../../lib/validate.js';
import { type ToolEnv, gated, text } from '../result.js';
import { describedToolInput } from '../tool-input.js';

/** The largest image an agent may send: its base64 text must fit the MCP endpoint's 5 MB body with room to spare. */
export const UPLOAD_MAX_BYTES = 3 * 1024 * 1024;
const BASE64_MAX = 4 * Math.ceil(UPLOAD_MAX_BYTES / 3);
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
const NOT_BASE64_DIGIT = /[^A-Za-z0-9+/]/;

/**
 * What BASE64 says, checked by a search for one character out of place instead of BASE64's
 * `+` loop: where V8 compiles regexps without optimisation (a process that has compiled many),
 * that loop takes a backtrack entry per character and a full-size upload (4 MB of base64) runs
 * out of backtrack stack ("Maximum call stack size exceeded").
 */
function isBase64(text: string): boolean {
  const digits = text.endsWith('==') ? text.length - 2 : text.endsWith('=') ? text.length - 1 : text.length;
  return digits > 0 && !NOT_BASE64_DIGIT.test(text.slice(0, digits));
}

/** upload_image's arguments (exported for the test that parses them where V8 no longer optimises regexps). */
export const uploadInput = describedToolInput('image upload', {
  data: advertisedAs(
    z.string().min(1).max(BASE64_MAX).regex(BASE64),
    lengthFirst(BASE64_MAX, z.string().min(1).refine(isBase64, 'must be the image bytes in standard base64 (A-Z a-z 0-9 + /, = padding, no line breaks)')),
  ).describe(`The image's bytes, base64 (at most ${BASE64_MAX} characters: ${UPLOAD_MAX_BYTES / (1024 * 1024)} MB of image). JPEG, PNG, GIF, WebP, AVIF or SVG, told from the bytes.`),
  filename: someText(200).optional().describe('A name for the image in messages (its type is never taken from it).'),
});

const uploadOutput = z.object({
  url: z.string(),
  hash: z.string(),
  contentType: z.string(),
  size: z.number().int(),
  width: z.number().int().nullable(),
  height: z.number().int().nullable(),
  added: z.boolean(),
});

export function registerImageTools(server: McpServer, env: ToolEnv): void {
  server.registerTool(
    'upload_image',
    {
      title: 'Upload an image',
      description:
        "Store an image in the workspace's image store and get its public URL (https://<svc>/media/<sha256>.<ext>, cached for a year): " +
        'use it as `featuredImageUrl` or in the body (`![alt](url)`). The same bytes give the same URL; sending them again stores nothing. ' +
        `At most ${UPLOAD_MAX_BYTES / (1024 * 1024)} MB (or the daemon's images.maxBytes if smaller). Needs \`content\`.`,
      inputSchema: uploadInput,
      outputSchema: uploadOutput,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    gated(env, { tool: 'upload_image', scope: 'content', role: 'editor' }, async (args: z.infer<typeof uploadInput>) => {
      const bytes = Buffer.from(args.data, 'base64');
      if (bytes.length === 0 || Math.ceil(bytes.length / 3) * 4 !== args.data.length) throw new AppError('invalid_input', 400, 'data is not whole base64: its length must be a multiple of 4 (pad with =)');
      const name = args.filename ? `The image ${args.filename}` : 'The image';
      if (bytes.length > UPLOAD_MAX_BYTES && UPLOAD_MAX_BYTES < env.app.config.images.maxBytes) {
        throw imageErrors.tooLarge(name, bytes.length, UPLOAD_MAX_BYTES, 'upload_image takes at most 3 MB (the MCP request size): make it smaller, or store it with `svc images add` and use the URL it prints.');
      }
      const image = await addImage(env.app, env.workspace, bytes, name);
      const { hash, contentType, size, width, height, url, added } = image;
      const dims = width && height ? `, ${width}x${height}` : '';
      return text(`${added ? 'Stored' : 'Already stored'}: ${url} (${contentType}, ${size} bytes${dims}). Use it as featuredImageUrl or in the body as ![alt](${url}).`, { url, hash, contentType, size, width, height, added });
    }),
  );
}
