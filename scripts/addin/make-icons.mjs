// Writes the add-in's ribbon and store icons (addin/assets/icon-{16,32,64,80}.png): a blue rounded square
// with a white ring. Drawn here rather than exported from an editor so the PNGs are reproducible with
// node's zlib alone. Run: node scripts/addin/make-icons.mjs
import { mkdirSync, writeFileSync } from 'node:fs';
import { deflateSync, crc32 } from 'node:zlib';

const SIZES = [16, 32, 64, 80];
const BLUE = [15, 108, 189]; // Fluent's brand blue, so the mark sits with the task pane's theme.
const WHITE = [255, 255, 255];
const SAMPLES = 8; // per axis: 64 samples per pixel give smooth edges at 16 px.

/** Signed distance from (x, y) to a rounded square filling [0, 1]², corner radius r. */
function roundedSquare(x, y, r) {
  const dx = Math.max(Math.abs(x - 0.5) - (0.5 - r), 0);
  const dy = Math.max(Math.abs(y - 0.5) - (0.5 - r), 0);
  return Math.hypot(dx, dy) - r;
}

/** RGBA rows of one icon; coverage is estimated by supersampling the unit-square geometry. */
function draw(size) {
  const rgba = Buffer.alloc(size * size * 4);
  for (let py = 0; py < size; py++) {
    for (let px = 0; px < size; px++) {
      let square = 0;
      let ring = 0;
      for (let sy = 0; sy < SAMPLES; sy++) {
        for (let sx = 0; sx < SAMPLES; sx++) {
          const x = (px + (sx + 0.5) / SAMPLES) / size;
          const y = (py + (sy + 0.5) / SAMPLES) / size;
          if (roundedSquare(x, y, 0.2) > 0) continue;
          square++;
          const d = Math.hypot(x - 0.5, y - 0.5);
          if (d <= 0.31 && d >= 0.17) ring++;
        }
      }
      const at = (py * size + px) * 4;
      if (square === 0) continue;
      // Straight (not premultiplied) alpha: the colour is the mix inside the square, alpha its coverage.
      for (let c = 0; c < 3; c++) rgba[at + c] = Math.round((WHITE[c] * ring + BLUE[c] * (square - ring)) / square);
      rgba[at + 3] = Math.round((255 * square) / (SAMPLES * SAMPLES));
    }
  }
  return rgba;
}

function chunk(type, data) {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

function png(size, rgba) {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header.set([8, 6, 0, 0, 0], 8); // 8-bit RGBA, deflate, no filter method variants, no interlace
  const stride = size * 4;
  const raw = Buffer.alloc((stride + 1) * size); // each row starts with filter type 0 (none)
  for (let y = 0; y < size; y++) rgba.copy(raw, y * (stride + 1) + 1, y * stride, (y + 1) * stride);
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return Buffer.concat([signature, chunk('IHDR', header), chunk('IDAT', deflateSync(raw, { level: 9 })), chunk('IEND', Buffer.alloc(0))]);
}

const out = new URL('../../addin/assets/', import.meta.url);
mkdirSync(out, { recursive: true });
for (const size of SIZES) {
  const file = new URL(`icon-${size}.png`, out);
  writeFileSync(file, png(size, draw(size)));
  console.log(`wrote ${file.pathname}`);
}
