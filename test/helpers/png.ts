/** A minimal PNG reader (8-bit RGB/RGBA, non-interlaced, as Chromium writes screenshots): enough to count pixels. */
import { inflateSync } from 'node:zlib';

export interface Image {
  width: number;
  height: number;
  /** RGBA, 4 bytes per pixel. */
  rgba: Uint8Array;
}

export function readPng(buf: Buffer): Image {
  if (buf.readUInt32BE(0) !== 0x89504e47) throw new Error('not a PNG');
  let pos = 8;
  let width = 0;
  let height = 0;
  let colorType = 0;
  const idat: Buffer[] = [];
  while (pos < buf.length) {
    const len = buf.readUInt32BE(pos);
    const type = buf.toString('latin1', pos + 4, pos + 8);
    const data = buf.subarray(pos + 8, pos + 8 + len);
    if (type === 'IHDR') {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
      if (data[8] !== 8 || data[12] !== 0) throw new Error('only 8-bit non-interlaced PNGs');
      colorType = data[9] as number;
    } else if (type === 'IDAT') idat.push(data);
    else if (type === 'IEND') break;
    pos += 12 + len;
  }
  const channels = colorType === 6 ? 4 : colorType === 2 ? 3 : 0;
  if (!channels) throw new Error(`unsupported colour type ${colorType}`);
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * channels;
  const out = new Uint8Array(width * height * 4);
  let prev = new Uint8Array(stride);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)] as number;
    const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    const cur = new Uint8Array(stride);
    for (let i = 0; i < stride; i++) {
      const a = i >= channels ? (cur[i - channels] as number) : 0;
      const b = prev[i] as number;
      const c = i >= channels ? (prev[i - channels] as number) : 0;
      const x = line[i] as number;
      let v: number;
      if (filter === 0) v = x;
      else if (filter === 1) v = x + a;
      else if (filter === 2) v = x + b;
      else if (filter === 3) v = x + ((a + b) >> 1);
      else {
        const p = a + b - c;
        const pa = Math.abs(p - a);
        const pb = Math.abs(p - b);
        const pc = Math.abs(p - c);
        v = x + (pa <= pb && pa <= pc ? a : pb <= pc ? b : c);
      }
      cur[i] = v & 255;
    }
    for (let xPix = 0; xPix < width; xPix++) {
      const o = (y * width + xPix) * 4;
      out[o] = cur[xPix * channels] as number;
      out[o + 1] = cur[xPix * channels + 1] as number;
      out[o + 2] = cur[xPix * channels + 2] as number;
      out[o + 3] = channels === 4 ? (cur[xPix * channels + 3] as number) : 255;
    }
    prev = cur;
  }
  return { width, height, rgba: out };
}

/** Pixels within `tolerance` of an RGB colour. */
export function countColour(img: Image, rgb: [number, number, number], tolerance = 24): number {
  let n = 0;
  for (let i = 0; i < img.rgba.length; i += 4) {
    if (
      Math.abs((img.rgba[i] as number) - rgb[0]) <= tolerance &&
      Math.abs((img.rgba[i + 1] as number) - rgb[1]) <= tolerance &&
      Math.abs((img.rgba[i + 2] as number) - rgb[2]) <= tolerance
    )
      n++;
  }
  return n;
}
