import { imageErrors } from './errors.js';

/** The image types svc stores, by the extension of their URL. */
export const IMAGE_TYPES = {
  jpg: 'image/jpeg',
  png: 'image/png',
  gif: 'image/gif',
  webp: 'image/webp',
  avif: 'image/avif',
  svg: 'image/svg+xml',
} as const;

export type ImageExt = keyof typeof IMAGE_TYPES;

export const extOfType = (type: string): ImageExt | undefined => (Object.keys(IMAGE_TYPES) as ImageExt[]).find((e) => IMAGE_TYPES[e] === type);

export interface Sniffed {
  ext: ImageExt;
  contentType: (typeof IMAGE_TYPES)[ImageExt];
  width: number | null;
  height: number | null;
}

/**
 * The type of an image from its bytes (magic numbers; a name's extension or a client's claim is
 * never asked), its dimensions where the header gives them, and a check that it is whole: a
 * file cut short (an interrupted copy or upload) is refused rather than served broken. Each
 * check reads a header or walks a chain of length-prefixed blocks: linear in the size at most.
 */
export function sniffImage(bytes: Buffer, name: string): Sniffed {
  const at = (offset: number, text: string) => bytes.length >= offset + text.length && bytes.toString('latin1', offset, offset + text.length) === text;
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return jpeg(bytes, name);
  if (at(0, '\x89PNG\r\n\x1a\n')) {
    if (bytes.length < 24 || !at(bytes.length - 8, 'IEND')) throw imageErrors.truncated(name, 'PNG', 'no IEND chunk at its end');
    return found('png', bytes.readUInt32BE(16), bytes.readUInt32BE(20));
  }
  if (at(0, 'GIF87a') || at(0, 'GIF89a')) {
    if (bytes.length < 14 || bytes[bytes.length - 1] !== 0x3b) throw imageErrors.truncated(name, 'GIF', 'no trailer byte at its end');
    return found('gif', bytes.readUInt16LE(6), bytes.readUInt16LE(8));
  }
  if (at(0, 'RIFF') && at(8, 'WEBP')) return webp(bytes, name);
  if (at(4, 'ftyp') && /^avi[fs]$/.test(bytes.toString('latin1', 8, 12))) return avif(bytes, name);
  if (isSvg(bytes)) {
    if (!/<\/svg\s*>\s*$/.test(bytes.toString('utf8', Math.max(0, bytes.length - 256)))) throw imageErrors.truncated(name, 'SVG', 'no closing </svg> at its end');
    return found('svg', null, null);
  }
  throw imageErrors.unsupportedType(name, bytes);
}

const found = (ext: ImageExt, width: number | null, height: number | null): Sniffed => ({ ext, contentType: IMAGE_TYPES[ext], width: width || null, height: height || null });

/**
 * JPEG: segments from SOI, each with its length, through a frame header (SOFn, the size) to the
 * start of scan; the image data after it ends with EOI (inside it a 0xFF is always followed by 0
 * or a restart marker, so the first FF D9 there is the end). Bytes after EOI (phone makers'
 * trailers) are allowed.
 */
function jpeg(bytes: Buffer, name: string): Sniffed {
  let width: number | null = null;
  let height: number | null = null;
  let scan = -1;
  for (let i = 2; i + 4 <= bytes.length; ) {
    if (bytes[i] !== 0xff) break;
    const marker = bytes[i + 1];
    if (marker === 0xff) {
      i += 1; // fill byte
      continue;
    }
    if (marker === 0xda) {
      scan = i;
      break;
    }
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc && i + 9 <= bytes.length) {
      height = bytes.readUInt16BE(i + 5);
      width = bytes.readUInt16BE(i + 7);
    }
    i += 2 + bytes.readUInt16BE(i + 2);
  }
  if (scan < 0 || bytes.indexOf(EOI, scan) < 0) throw imageErrors.truncated(name, 'JPEG', scan < 0 ? 'no image data after its headers' : 'no end-of-image marker after its image data');
  return found('jpg', width, height);
}

const EOI = Buffer.from([0xff, 0xd9]);

/** WebP: a RIFF container whose declared size must be there; the size from its VP8, VP8L or VP8X chunk. */
function webp(bytes: Buffer, name: string): Sniffed {
  if (bytes.length < 30 || bytes.readUInt32LE(4) + 8 > bytes.length) throw imageErrors.truncated(name, 'WebP', 'shorter than its RIFF header says');
  const chunk = bytes.toString('latin1', 12, 16);
  const u24 = (o: number) => bytes[o] | (bytes[o + 1] << 8) | (bytes[o + 2] << 16);
  if (chunk === 'VP8X') return found('webp', 1 + u24(24), 1 + u24(27));
  if (chunk === 'VP8 ') return found('webp', bytes.readUInt16LE(26) & 0x3fff, bytes.readUInt16LE(28) & 0x3fff);
  if (chunk === 'VP8L') return found('webp', 1 + (bytes[21] | ((bytes[22] & 0x3f) << 8)), 1 + ((bytes[22] >> 6) | (bytes[23] << 2) | ((bytes[24] & 0x0f) << 10)));
  return found('webp', null, null);
}

/** AVIF (ISO BMFF): the top-level boxes must add up to the file exactly; the size from the first `ispe` box. */
function avif(bytes: Buffer, name: string): Sniffed {
  let i = 0;
  while (i < bytes.length) {
    if (i + 8 > bytes.length) throw imageErrors.truncated(name, 'AVIF', 'a box header cut off');
    let size = bytes.readUInt32BE(i);
    if (size === 1) {
      if (i + 16 > bytes.length) throw imageErrors.truncated(name, 'AVIF', 'a box header cut off');
      size = Number(bytes.readBigUInt64BE(i + 8));
    } else if (size === 0) size = bytes.length - i; // the last box runs to the end
    if (size < 8 || i + size > bytes.length) throw imageErrors.truncated(name, 'AVIF', 'a box longer than what is left of the file');
    i += size;
  }
  const ispe = bytes.indexOf('ispe', 0, 'latin1');
  return ispe > 0 && ispe + 16 <= bytes.length ? found('avif', bytes.readUInt32BE(ispe + 8), bytes.readUInt32BE(ispe + 12)) : found('avif', null, null);
}

/** SVG: UTF-8 text whose first element, after an XML declaration, comments and a doctype, is <svg>. */
function isSvg(bytes: Buffer): boolean {
  let head = bytes.toString('utf8', 0, Math.min(bytes.length, 4096)).replace(/^\uFEFF/, '');
  for (;;) {
    const next = head.replace(/^\s+/, '').replace(/^<\?xml[^>]*\?>/, '').replace(/^<!--[\s\S]*?-->/, '').replace(/^<!DOCTYPE[^>[]*(\[[^\]]*\])?\s*>/i, '');
    if (next === head) break;
    head = next;
  }
  return /^<svg[\s>]/.test(head);
}
