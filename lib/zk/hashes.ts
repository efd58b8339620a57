/**
 * The three circomlib hashes. Inputs are range-checked here because circomlibjs reduces mod r
 * silently; outputs match circom's circuits bit for bit (same library, same parameters).
 */
import { errors } from '#lib/errors.ts';
import { assertField, bytesToHex, fieldElement, toHex32 } from './decimal.ts';
import { getMimc7, getPedersen, getPoseidon } from './primitives.ts';

/** circomlibjs's wasm Poseidon (and circomlib's circuit) take 1 to 16 inputs. */
export const POSEIDON_MAX_INPUTS = 16;
/**
 * Pedersen input cap. circomlibjs's cost is one 250-bit scalar multiplication per 200 bits of
 * input (~25 ms each, plus base-point derivation on first use): 256 bytes is ~0.3 s, 1 KiB
 * already ~1–2 s of CPU per request, so 256 bytes keeps the endpoint cheap.
 */
export const PEDERSEN_MAX_BYTES = 256;

export async function poseidon(inputs: readonly bigint[]): Promise<bigint> {
  if (inputs.length < 1 || inputs.length > POSEIDON_MAX_INPUTS) {
    throw errors.invalidInput(`inputs: must hold 1 to ${POSEIDON_MAX_INPUTS} elements`);
  }
  // circomlibjs would reduce an out-of-range bigint silently: refuse it here too.
  inputs.forEach((v, i) => assertField(`inputs.${i}`, v));
  const h = await getPoseidon();
  return h.F.toObject(h([...inputs]));
}

/** MiMC7, 91 rounds, circomlib's seed "mimc": circomlib's MiMC7(91) template. */
export async function mimc7(x: bigint, key: bigint): Promise<bigint> {
  assertField('input', x);
  assertField('key', key);
  const m = await getMimc7();
  return m.F.toObject(m.hash(x, key));
}

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

export type PoseidonRequest = { input?: string; inputs?: string[] };
export type PoseidonData =
  | { algorithm: 'poseidon'; hash: string; input: string }
  | { algorithm: 'poseidon'; hash: string; inputs: string[] };

export async function hashPoseidon(req: PoseidonRequest): Promise<PoseidonData> {
  if ((req.input === undefined) === (req.inputs === undefined)) {
    throw errors.invalidInput('input: send exactly one of input (one element) or inputs (an array of 1 to 16)');
  }
  if (req.input !== undefined) {
    const x = fieldElement('input', req.input);
    return { algorithm: 'poseidon', hash: toHex32(await poseidon([x])), input: x.toString() };
  }
  const raw = req.inputs!;
  if (!Array.isArray(raw) || raw.length < 1 || raw.length > POSEIDON_MAX_INPUTS) {
    throw errors.invalidInput(`inputs: must be an array of 1 to ${POSEIDON_MAX_INPUTS} decimal strings`);
  }
  const xs = raw.map((v, i) => fieldElement(`inputs.${i}`, v));
  return { algorithm: 'poseidon', hash: toHex32(await poseidon(xs)), inputs: xs.map(String) };
}

export type MimcRequest = { input: string; key?: string };
export type MimcData = { algorithm: 'mimc7'; hash: string; input: string; key: string };

export async function hashMimc(req: MimcRequest): Promise<MimcData> {
  const x = fieldElement('input', req.input);
  const k = req.key === undefined ? 0n : fieldElement('key', req.key);
  return { algorithm: 'mimc7', hash: toHex32(await mimc7(x, k)), input: x.toString(), key: k.toString() };
}

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
