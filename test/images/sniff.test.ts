import { describe, expect, it } from 'vitest';
import { sniffImage } from '../../src/images/sniff.js';

// 16 x 16 images from CPython's test data (Lib/test/imghdrdata, PSF licence): real files of each format.
const JPEG = Buffer.from('/9j/4AAQSkZJRgABAQEAAQABAAD/2wBDAAMCAgICAgMCAgIDAwMDBAYEBAQEBAgGBgUGCQgKCgkICQkKDA8MCgsOCwkJDRENDg8QEBEQCgwSExIQEw8QEBD/2wBDAQMDAwQDBAgEBAgQCwkLEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBD/wAARCAAQABADASIAAhEBAxEB/8QAFgABAQEAAAAAAAAAAAAAAAAABwQF/8QAJBAAAQQBBAICAwAAAAAAAAAAAQIDBAYFBwgSExEiABQJMTL/xAAVAQEBAAAAAAAAAAAAAAAAAAAABv/EACMRAAECBQMFAAAAAAAAAAAAAAECEQMEBQYhABIxFRZhgeH/2gAMAwEAAhEDEQA/ABSm0mobc8HmExLUlRzzEWPkJWW+ulrsaUVAseUgslSlH9LKuPryIKuWPZdskzXmm3fX5m2nF4GlVxx/HOpx4ks51+MiU/Iaad7UcUo4tILoS4kqcWkezS0hO/HvuRp0rO6hWnWO1UisZVuFi4GFeyEpmGepa5S5SWVPuciFKRFLgSrwetnyPIB+Vb4N9mKhQMzo5po9XLdDs9d6ZVix2VEhiL9kuNPxw2gEKcDQ/rs8AuA8VAe0vdl7VOYn+27flGAUgmITjbhSmCg3BYlyeWDkMolvw4KOp1KM6iCNvngZHwetf//Z', 'base64');
const WEBP = Buffer.from('UklGRqgBAABXRUJQVlA4WAoAAAAQAAAADwAADwAAQUxQSMMAAAABJ6KokSTleucYX+ffKpmImP90cY3gJjDi4Yt3MsjBEVyDKzDosHgVjnhRNcEIDAJPkqBqsFUZHNa2bUYvTsZ2PLbtd/uvKa4hov9J0f2PkPe6REkkGzolkTTzFG0Ox9PlFiD0CxS+kOGDtxoynjaCfx0pfk52CPuInrOR75lzRugygtv4zEiy90UwfSD9NheMITJWLaXWayO8XeOlWRXVnIGk2W6WdYoYMQ+KqixQNPowgt+6a1BSKbUtz+lUFAoBAAAAVlA4IL4AAACQAgCdASoQABAAAwA0JbACdDBPCIUMfAMdCCz96AD+/XSg/QKbH4r3Q3ycN/bSDK/T/zVo4u6nvclvG/SqxWOuup+XhN9BojvaW+Tv+MvxvX/hr/o/5Qns9LtmX/+qKdl/yWznhuasl7nkxvSTI4xf3Y85VSB/lU/8Ofj/b9JrA+ifvIOYZm2x1RP/dhfmsf5diuSfR7+z+r/+HR3zEo/+XM/B+vkYw73Pzx+ROaAB/ZoBSzEs3rzZe6qsAAAA', 'base64');
const BMP = Buffer.from('Qk2KBAAAAAAAAIoAAAB8AAAAEAAAABAAAAABACAAAwAAAAAEAAAAAAAAAAAAAAAAAAAAAAAAAAD/AAD/AAD/AAAAAAAA/0JHUnOAwvUoYLgeFSCF6wFAMzMTgGZmJkBmZgagmZkJPArXAyRcjzIAAAAAAAAAAAAAAAAEAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAgAAAAdAAAANQAAAEIAAABHAAAARQAAADgAAAAfAAAACAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA/0PFMOdP6zC/S/fcm0P//HMz//xnH+tgSl8B7AAAAOwAAABIAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAATt7990Tb//862P//MNT//ybQ////////G8v99wAAAEAAAAAcAAAACQAAAAUAAAABAAAAAgAAAAkAAAATAAAAEljj//9O3///RNv//zrX//8w0///JdD//xzM//8AAABBAAAANQAAACwAAAAeAAAACwAAAAgAAAAhAAAAPAAAADVi5///WOP//07f//89x+iqNMXrqSrC66khvuupGLvrqRi766kSm8Z5AAAAQQAAACCjdUBvonM995xwOv8AAABLbOv//2Ln//9Y4///Tt///0Pb//851///L9P//yTP//8czP//HMz//xKawnoAAAA0rn1D16h5Qf+hdD3/SzIcW2/j9bNs6///Yef//1fj//9N3///Q9v//znX//8u0///JM///xzM//8awfPCAAAAQbKBRvetfUT/pnhA/5FnNqoAAABObuHypmrp/fdh5v//V+P//03f//9C2///ONf//y7T//8kz///G8v99wAAAEe5h0r/soFH/6t8Q/+ldj//k2k2tkUxG1wAAABMAAAASAAAAEcAAABBRcPia0HZ/fc41///LdP//yPP//8AAABGvotN/7eFSf+wgEb/qntC/6N1Pv+ccDv/lmo3/5RpNv+SaDX3h2AytgAAAE9FzuyIQtr//zfW//8t0///AAAAPcOPUP+8iUz/tYRI/69/Rf+oeUH/oXQ9/5tvOv+UaTb/lGk2/5RpNv+HYDK2AAAAQ0ve//9B2v//NtX97QAAACTGkVK9wY1P/7uIS/+0g0j/rX1E/6Z4QP+gcz3/mW05/5RpNv+UaTb/lGk2/wAAAEhV4v//St399z7V+YIAAAAKAAAAAMSPTn6/ikygtoVIoa19Q6OhdD2nlmw5qpBmNqqXbDj/lGk2/5RpNv8AAABIAAAAGAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAC3hUn/sYBG/6p7Qv+jdT7/nXA7/5ZqN/+UaTb/AAAAQQAAABUAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAvIpM//////+vf0X/qHlB/6J0Pv+bbzr/lGk2/wAAACgAAAALAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAMCNTq+6hkrttINI/61+RP+neED/nnE895ZoN5IAAAALAAAAAwAAAAAAAAAAAAAAAA==', 'base64');
const TIFF = Buffer.from('SUkqAAgEAAAAAAAAAAAAAAAAAAAAAAAATo3Ar0qGuu1Ig7T/RH6t/0B4p/88cZ73N2iWkgAAAAsAAAADAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAEyKvP//////RX+v/0F5qP8+dKL/Om+b/zZplP8AAAAoAAAACwAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAABJhbf/RoCx/0J7qv8+daP/O3Cd/zdqlv82aZT/AAAAQQAAABUAAAAAAAAAAAAAAAAAAAAATo/EfkyKv6BIhbahQ32toz10oac5bJaqNmaQqjhsl/82aZT/NmmU/wAAAEgAAAAYAAAAAAAAAAAAAAAAUpHGvU+Nwf9LiLv/SIO0/0R9rf9AeKb/PXOg/zltmf82aZT/NmmU/zZplP8AAABI/+JV//3dSvf51T6CAAAAClCPw/9Mibz/SIS1/0V/r/9Beaj/PXSh/zpvm/82aZT/NmmU/zZplP8yYIe2AAAAQ//eS///2kH//dU27QAAACRNi77/SYW3/0aAsP9Ce6r/PnWj/ztwnP83apb/NmmU/zVokvcyYIe2AAAAT+zORYj/2kL//9Y3///TLf8AAAA9Soe5/0eBsv9DfKv/P3al/zZpk7YbMUVcAAAATAAAAEgAAABHAAAAQeLDRWv92UH3/9c4///TLf//zyP/AAAARkaBsvdEfa3/QHim/zZnkaoAAABO8uFupv3pavf/5mH//+NX///fTf//20L//9c4///TLv//zyT//csb9wAAAEdDfa7XQXmo/z10of8cMktb9eNvs//rbP//52H//+NX///fTf//20P//9c5///TLv//zyT//8wc//PBGsIAAABBQHWjbz1zovc6cJz/AAAAS//rbP//52L//+NY///fTv//20P//9c5///TL///zyT//8wc///MHP/CmhJ6AAAANAAAAAgAAAAhAAAAPAAAADX/52L//+NY///fTv/oxz2q68U0qevCKqnrviGp67sYqeu7GKnGmxJ5AAAAQQAAACAAAAACAAAACQAAABMAAAAS/+NY///fTv//20T//9c6///TMP//0CX//8wc/wAAAEEAAAA1AAAALAAAAB4AAAALAAAAAAAAAAAAAAAAAAAAAP3eTvf/20T//9g6///UMP//0Cb///////3LG/cAAABAAAAAHAAAAAkAAAAFAAAAAQAAAAAAAAAAAAAAAAAAAADx0D9M+tM5zP3SL/f/0Cb//8wc//rHGdjAlxJ7AAAAOwAAABIAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAACAAAAB0AAAA1AAAAQgAAAEcAAABFAAAAOAAAAB8AAAAIAAAAAAAAAAAAAAAAEQAAAQMAAQAAABAAAAABAQMAAQAAABAAAAACAQMABAAAANoEAAADAQMAAQAAAAEAAAAGAQMAAQAAAAIAAAAKAQMAAQAAAAEAAAANAQIADAAAACIFAAARAQQAAQAAAAgAAAASAQMAAQAAAAEAAAAVAQMAAQAAAAQAAAAWAQMAAQAAAIAAAAAXAQQAAQAAAAAEAAAcAQMAAQAAAAEAAAApAQMAAgAAAAAAAQA+AQUAAgAAABIFAAA/AQUABgAAAOIEAABSAQMAAQAAAAIAAAAAAAAACAAIAAgACAAACtej/////4DhelT/////AM3MTP////8AmpmZ/////4BmZib/////8ChcD/////+AGw1Q/////wBYOVT/////cHl0aG9uLnRpZmYA', 'base64');

/** An AVIF's box structure (ftyp, meta holding ispe 32 x 24, mdat): what the sniffer reads of one. */
function avif(): Buffer {
  const box = (type: string, ...parts: Buffer[]) => {
    const body = Buffer.concat(parts);
    const head = Buffer.alloc(8);
    head.writeUInt32BE(8 + body.length, 0);
    head.write(type, 4, 'latin1');
    return Buffer.concat([head, body]);
  };
  const u32 = (...n: number[]) => Buffer.concat(n.map((v) => { const b = Buffer.alloc(4); b.writeUInt32BE(v); return b; }));
  const ispe = box('ispe', u32(0, 32, 24));
  return Buffer.concat([box('ftyp', Buffer.from('avif', 'latin1'), u32(0), Buffer.from('avifmif1', 'latin1')), box('meta', u32(0), box('iprp', box('ipco', ispe))), box('mdat', Buffer.alloc(20, 7))]);
}

describe('image types told from the bytes', () => {
  it('reads the type and size of real JPEG and WebP files, and of an AVIF', () => {
    expect(sniffImage(JPEG, 'a')).toEqual({ ext: 'jpg', contentType: 'image/jpeg', width: 16, height: 16 });
    expect(sniffImage(WEBP, 'a')).toEqual({ ext: 'webp', contentType: 'image/webp', width: 16, height: 16 });
    expect(sniffImage(avif(), 'a')).toEqual({ ext: 'avif', contentType: 'image/avif', width: 32, height: 24 });
  });

  it('a JPEG with a maker trailer after its end is whole; one cut in its image data, a WebP or AVIF cut short, are refused', () => {
    expect(sniffImage(Buffer.concat([JPEG, Buffer.alloc(70_000, 1)]), 'a').ext).toBe('jpg');
    expect(() => sniffImage(JPEG.subarray(0, JPEG.length - 10), 'x.jpg')).toThrow('x.jpg is a JPEG cut short (no end-of-image marker after its image data)');
    expect(() => sniffImage(JPEG.subarray(0, 30), 'x.jpg')).toThrow('x.jpg is a JPEG cut short (no image data after its headers)');
    expect(() => sniffImage(WEBP.subarray(0, WEBP.length - 1), 'x.webp')).toThrow('x.webp is a WebP cut short');
    expect(() => sniffImage(avif().subarray(0, 60), 'x.avif')).toThrow('x.avif is an AVIF cut short');
  });

  it('BMP, TIFF and text are not images svc stores, whatever their name', () => {
    for (const [name, bytes] of [['x.bmp', BMP], ['x.jpg', TIFF], ['x.png', Buffer.from('<html><body>hi</body></html>')]] as const) {
      expect(() => sniffImage(bytes, name)).toThrow(expect.objectContaining({ code: 'image_type_unsupported', status: 415 }));
    }
  });
});
