import { AppError } from '../errors.js';

const mb = (bytes: number) => (bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KB` : `${(bytes / (1024 * 1024)).toFixed(1)} MB`);

/** The refusals of the image store, each with its own code. */
export const imageErrors = {
  tooLarge: (name: string, size: number, max: number, hint = 'Make the image smaller, or raise images.maxBytes.') =>
    new AppError('image_too_large', 413, `${name} is ${mb(size)} (${size} bytes); svc stores images of at most ${mb(max)} (${max} bytes)`, {
      hint,
      details: { size, max },
    }),
  unsupportedType: (name: string, bytes: Buffer) =>
    new AppError('image_type_unsupported', 415, `${name} is not an image svc stores: its bytes are not JPEG, PNG, GIF, WebP, AVIF or SVG${bytes.length === 0 ? ' (it is empty)' : ` (they begin ${bytes.subarray(0, 8).toString('hex')})`}`, {
      hint: 'svc tells the type from the bytes, not from the name: convert the image to one of these types.',
    }),
  truncated: (name: string, type: string, what: string) =>
    new AppError('image_truncated', 400, `${name} is ${/^(AVIF|SVG)$/.test(type) ? 'an' : 'a'} ${type} cut short (${what}): it would not show whole`, { hint: 'Copy or upload the whole file again.' }),
  storeFull: (name: string, size: number, held: number, max: number, plural = false) =>
    new AppError('image_store_full', 413, `${name} (${mb(size)}) ${plural ? 'do' : 'does'} not fit: the workspace's images already take ${mb(held)} of the ${mb(max)} it may hold`, {
      hint: 'Remove images no article uses (svc images list, svc images remove), or raise images.workspaceMaxBytes.',
      details: { size, held, max },
    }),
  notFound: (hash: string) => new AppError('not_found', 404, `Image ${hash} not found in this workspace`),
};
