/**
 * The site's icon, drawn here rather than kept as a binary file: a terminal prompt (`>_`) in the
 * terminal's green on its background, as a 32×32 32-bit ICO (one BMP image: the format every
 * browser reads at /favicon.ico).
 */
const SIZE = 32;
const BACKGROUND = [0x0b, 0x0f, 0x14];
const GREEN = [0x3f, 0xb9, 0x50];

/** Whether pixel (x, y) (from the top left) is the prompt's ink. */
function ink(x: number, y: number): boolean {
  // `>`: two strokes, 4 px wide, from (7,8) to (15,16) and back to (7,24).
  const cx = 15 - Math.abs(y - 16);
  if (y >= 8 && y <= 24 && x >= cx && x < cx + 4) return true;
  // `_`: a bar under the right half.
  return y >= 22 && y <= 24 && x >= 17 && x <= 26;
}

/** Inside the rounded square (corner radius 6), so that the corners are transparent. */
function inside(x: number, y: number): boolean {
  const r = 6;
  const dx = Math.max(r - x, x - (SIZE - 1 - r), 0);
  const dy = Math.max(r - y, y - (SIZE - 1 - r), 0);
  return dx * dx + dy * dy <= r * r;
}

export function favicon(): Buffer {
  const pixels = Buffer.alloc(SIZE * SIZE * 4);
  for (let row = 0; row < SIZE; row++) {
    const y = SIZE - 1 - row; // BMP rows go bottom up
    for (let x = 0; x < SIZE; x++) {
      const [r, g, b] = ink(x, y) ? GREEN : BACKGROUND;
      pixels.set([b!, g!, r!, inside(x, y) ? 0xff : 0], (row * SIZE + x) * 4); // BGRA
    }
  }
  const mask = Buffer.alloc((SIZE / 8) * SIZE); // the AND mask, unused under 32-bit alpha
  const info = Buffer.alloc(40);
  info.writeUInt32LE(40, 0);
  info.writeInt32LE(SIZE, 4);
  info.writeInt32LE(SIZE * 2, 8); // an ICO's BMP counts the mask's rows too
  info.writeUInt16LE(1, 12);
  info.writeUInt16LE(32, 14);
  info.writeUInt32LE(pixels.length + mask.length, 20);
  const image = Buffer.concat([info, pixels, mask]);
  const header = Buffer.alloc(6 + 16);
  header.writeUInt16LE(1, 2); // type: icon
  header.writeUInt16LE(1, 4); // one image
  header.writeUInt8(SIZE, 6);
  header.writeUInt8(SIZE, 7);
  header.writeUInt16LE(1, 10); // planes
  header.writeUInt16LE(32, 12); // bits per pixel
  header.writeUInt32LE(image.length, 14);
  header.writeUInt32LE(header.length, 18);
  return Buffer.concat([header, image]);
}
