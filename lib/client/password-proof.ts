/**
 * What a client runs to guard a stored file with a password: the commitment it uploads and the
 * Groth16 proof of knowledge of the password (circuits/password.circom).
 *
 * Encoding, which the circuit, the server and every client must share:
 *   d      = SHA-256(UTF-8 bytes of the password, exactly as typed: no trimming, no normalization)
 *   pw_hi  = d[0..16]  as a big-endian unsigned integer   (first 16 bytes, < 2^128)
 *   pw_lo  = d[16..32] as a big-endian unsigned integer   (last 16 bytes,  < 2^128)
 *   salt   = a field element in [0, r), random per file (randomSalt())
 *   commitment = Poseidon(pw_lo, pw_hi, salt)               (circomlib Poseidon, 3 inputs)
 * All values travel as decimal strings. The proof's publicSignals are [commitment].
 *
 * Browser-safe: SHA-256 and randomness come from WebCrypto (globalThis.crypto); the registry
 * (which reads files with node:fs) is only imported when no artifacts are passed.
 */
import type { Poseidon } from 'circomlibjs'; // typed by lib/zk/circomlibjs.d.ts
import { errors } from '#lib/errors.ts';
import { BN254_R as R } from '#lib/zk/bn254.ts';

export const PASSWORD_CIRCUIT = 'password';

export interface PasswordInputs {
  pw_lo: string;
  pw_hi: string;
  salt: string;
}

export interface PasswordArtifacts {
  /** The witness generator: bytes, or a path (Node) / URL (browser) snarkjs can read. */
  wasm: Uint8Array | string;
  /** The final proving key: bytes, or a path / URL. */
  zkey: Uint8Array | string;
}

export interface PasswordProof {
  proof: {
    pi_a: string[];
    pi_b: string[][];
    pi_c: string[];
    protocol: 'groth16';
    curve: 'bn128';
  };
  /** [commitment] */
  publicSignals: string[];
  commitment: string;
}

// Building circomlibjs's Poseidon compiles wasm (0.4–1.9 s): once per process. circomlibjs and
// snarkjs load at first use, not with this module: loading them takes seconds, and the CLI imports
// this module for every command (`shroud whoami` proves nothing).
let poseidonPromise: Promise<Poseidon> | undefined;
const poseidon = () =>
  (poseidonPromise ??= import('circomlibjs')
    .then((m) => m.buildPoseidon())
    .catch((e: unknown) => {
      poseidonPromise = undefined; // a failed build is retried by the next call
      throw e;
    }));

function checkSalt(salt: bigint): void {
  if (typeof salt !== 'bigint' || salt < 0n) throw errors.invalidInput('salt must be a non-negative integer');
  // The circuit would reduce it silently, so a salt >= r would not be the salt the user keeps.
  if (salt >= R) throw errors.fieldOverflow('salt must be less than the BN254 field order');
}

function bigEndian(bytes: Uint8Array): bigint {
  let n = 0n;
  for (const b of bytes) n = (n << 8n) | BigInt(b);
  return n;
}

/** The password circuit's inputs, as decimal strings. */
export async function passwordInputs(password: string, salt: bigint): Promise<PasswordInputs> {
  if (typeof password !== 'string') throw errors.invalidInput('password must be a string');
  checkSalt(salt);
  const digest = new Uint8Array(await globalThis.crypto.subtle.digest('SHA-256', new TextEncoder().encode(password)));
  return {
    pw_lo: bigEndian(digest.subarray(16, 32)).toString(),
    pw_hi: bigEndian(digest.subarray(0, 16)).toString(),
    salt: salt.toString(),
  };
}

/** Poseidon(pw_lo, pw_hi, salt) as a decimal string: what the server stores. */
export async function passwordCommitment(password: string, salt: bigint): Promise<string> {
  const inputs = await passwordInputs(password, salt);
  const h = await poseidon();
  return h.F.toObject(h([BigInt(inputs.pw_lo), BigInt(inputs.pw_hi), BigInt(inputs.salt)])).toString();
}

/** A uniformly random field element in [0, r), by rejection sampling 254-bit values. */
export function randomSalt(): bigint {
  const bytes = new Uint8Array(32);
  for (;;) {
    globalThis.crypto.getRandomValues(bytes);
    bytes[0] &= 0x3f; // r < 2^254: keep 254 bits, so about 1 draw in 4.3 is rejected
    const n = bigEndian(bytes);
    if (n < R) return n;
  }
}

async function defaultArtifacts(): Promise<PasswordArtifacts> {
  const { artifactPath } = await import('#lib/zk/circuits.ts');
  return { wasm: artifactPath(PASSWORD_CIRCUIT, 'wasm'), zkey: artifactPath(PASSWORD_CIRCUIT, 'zkey') };
}

/**
 * Proves knowledge of `password` for the commitment Poseidon(pw_lo, pw_hi, salt).
 * `artifacts` default to the repository's (or the layer's) password circuit; a browser passes
 * the bytes or URLs it downloaded.
 */
export async function passwordProof(password: string, salt: bigint, artifacts?: PasswordArtifacts): Promise<PasswordProof> {
  const inputs = await passwordInputs(password, salt);
  const { wasm, zkey } = artifacts ?? (await defaultArtifacts());
  const snarkjs = await import('snarkjs');
  const { proof, publicSignals } = await snarkjs.groth16.fullProve(inputs, wasm, zkey);
  const commitment = publicSignals[0];
  if (commitment === undefined) throw errors.proofGenerationFailed('the password circuit returned no commitment');
  return {
    proof: { pi_a: proof.pi_a, pi_b: proof.pi_b, pi_c: proof.pi_c, protocol: 'groth16', curve: 'bn128' },
    publicSignals,
    commitment,
  };
}
