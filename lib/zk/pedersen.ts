/**
 * circomlib's Pedersen hash of bytes; the result matches circom's circuits bit for bit (same
 * library, same parameters).
 */
import { errors } from '#lib/errors.ts';
import { getPedersen } from './circomlib/pedersen.ts';
import { bytesToHex } from './decimal.ts';

/**
 * Pedersen input cap. circomlibjs's cost is one 250-bit scalar multiplication per 200 bits of
 * input (~25 ms each, plus base-point derivation on first use): 256 bytes is ~0.3 s, 1 KiB
 * already ~1–2 s of CPU per request, so 256 bytes keeps the endpoint cheap.
 */
export const PEDERSEN_MAX_BYTES = 256;

/**
 * circomlib's Pedersen hash of bytes: the packed point (32 bytes) and the point itself. No
 * length cap at this level (cost grows linearly); the route caps at PEDERSEN_MAX_BYTES.
 */
export async function pedersen(bytes: Uint8Array): Promise<{ packed: Uint8Array; x: bigint; y: bigint }> {
  const ph = await getPedersen();
  const packed = ph.hash(bytes);
  // unpackPoint clears the sign bit of its argument in place: hand it a copy.
  const point = ph.babyJub.unpackPoint(Uint8Array.from(packed));
  if (!point) throw new Error('pedersen: hash is not a packed curve point');
  return { packed, x: ph.babyJub.F.toObject(point[0]), y: ph.babyJub.F.toObject(point[1]) };
}

// ---- request level: validated request fields in, the response `data` out ----

export type PedersenEncoding = 'utf8' | 'hex';
export type PedersenRequest = { input: string; encoding?: PedersenEncoding };
export type PedersenData = {
  algorithm: 'pedersen';
  hash: string;
  point: { x: string; y: string };
  encoding: PedersenEncoding;
  bytes: number;
};

const HEX_BODY = /^(?:[0-9a-fA-F]{2})*$/;
// In a `u` regex a well-formed surrogate pair is one code point: only lone halves match.
const LONE_SURROGATE = /\p{Surrogate}/u;

/**
 * The bytes to hash: `0x`-prefixed input is hex bytes, anything else UTF-8 text. `encoding`
 * overrides the guess ("utf8" hashes a text that happens to start with 0x).
 */
export function pedersenInput(input: unknown, encoding?: PedersenEncoding): { bytes: Uint8Array; encoding: PedersenEncoding } {
  if (typeof input !== 'string') throw errors.invalidInput('input: must be a string');
  const enc: PedersenEncoding = encoding ?? (input.startsWith('0x') ? 'hex' : 'utf8');
  let bytes: Uint8Array;
  if (enc === 'hex') {
    const body = input.startsWith('0x') ? input.slice(2) : null;
    if (body === null || !HEX_BODY.test(body)) {
      throw errors.invalidInput('input: hex input must be 0x followed by an even number of hex digits (send encoding "utf8" to hash it as text)');
    }
    // Length-check before decoding so an oversized body costs nothing.
    if (body.length / 2 > PEDERSEN_MAX_BYTES) throw errors.invalidInput(`input: at most ${PEDERSEN_MAX_BYTES} bytes`);
    bytes = Uint8Array.from(Buffer.from(body, 'hex'));
  } else {
    if (LONE_SURROGATE.test(input)) throw errors.invalidInput('input: text is not well-formed Unicode');
    if (input.length > PEDERSEN_MAX_BYTES) throw errors.invalidInput(`input: at most ${PEDERSEN_MAX_BYTES} bytes`);
    bytes = new TextEncoder().encode(input);
  }
  if (bytes.length === 0) throw errors.invalidInput('input: must hold at least one byte');
  if (bytes.length > PEDERSEN_MAX_BYTES) throw errors.invalidInput(`input: at most ${PEDERSEN_MAX_BYTES} bytes`);
  return { bytes, encoding: enc };
}

export async function hashPedersen(req: PedersenRequest): Promise<PedersenData> {
  const { bytes, encoding } = pedersenInput(req.input, req.encoding);
  const h = await pedersen(bytes);
  return {
    algorithm: 'pedersen',
    hash: bytesToHex(h.packed),
    point: { x: h.x.toString(), y: h.y.toString() },
    encoding,
    bytes: bytes.length,
  };
}
