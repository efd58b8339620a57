/**
 * Groth16 proofs over BN254 with snarkjs, for the circuits of the registry (lib/zk/circuits.ts).
 *
 * Error contract:
 *   - unknown circuit, malformed input values, malformed proofs or public signals: INVALID_INPUT;
 *   - a value >= the BN254 scalar field order r: FIELD_OVERFLOW (circom and snarkjs would
 *     silently reduce it, so two different requests would mean the same thing);
 *   - inputs that do not fit the circuit (missing, unknown, wrong length) or do not satisfy its
 *     constraints: PROOF_FAILED;
 *   - a well-formed proof that does not verify: `false`, never an error.
 *
 * Verification keys and artifact bytes are cached per process (per Lambda instance); the curve
 * (and its worker threads) lives in globalThis.curve_bn128, see terminateCurves().
 */
import { readFileSync } from 'node:fs';
import * as z from 'zod';
import type { Curve, Groth16Proof, MemFile } from 'snarkjs';
import { errors, isAppError } from '#lib/errors.ts';
import { artifactPath, getCircuit, type CircuitManifest } from './circuits.ts';
import { BN254_Q, BN254_R } from './bn254.ts';

/**
 * snarkjs (with ffjavascript's curves, r1csfile, circom_runtime: ~330 KB of a bundle) on first
 * use, not at import: every function that checks a proof schema or the field order imports this
 * module, and most never prove (test/bench/cold-assets.ts). Typed by lib/zk/snarkjs.d.ts.
 */
let snarkjsLoaded: Promise<typeof import('snarkjs')> | undefined;
const snarkjsLib = () => (snarkjsLoaded ??= import('snarkjs'));

export type { Groth16Proof };

export interface ProofResult {
  proof: Groth16Proof;
  publicSignals: string[];
}

export type CircuitInputs = Record<string, string | string[]>;

// ---------------------------------------------------------------------------------------------
// Caches

interface Loaded {
  manifest: CircuitManifest;
  wasm?: Uint8Array;
  zkey?: Uint8Array;
  vkey?: unknown;
  /** The verification key's points as the curve's buffers (converted once). */
  key?: VerifyingKey;
}
const loaded = new Map<string, Loaded>();

function circuitEntry(name: string): Loaded {
  const manifest = getCircuit(name); // INVALID_INPUT for an unknown name
  let entry = loaded.get(manifest.name);
  if (!entry || entry.manifest !== manifest) {
    entry = { manifest };
    loaded.set(manifest.name, entry);
  }
  return entry;
}

const wasmOf = (e: Loaded) => (e.wasm ??= readFileSync(artifactPath(e.manifest.name, 'wasm')));
const zkeyOf = (e: Loaded) => (e.zkey ??= readFileSync(artifactPath(e.manifest.name, 'zkey')));
const vkeyOf = (e: Loaded) => (e.vkey ??= JSON.parse(readFileSync(artifactPath(e.manifest.name, 'vkey'), 'utf8')));

/** Loads a circuit's artifacts into the process cache ahead of the first request. */
export function preloadCircuit(name: string): void {
  const e = circuitEntry(name);
  wasmOf(e);
  zkeyOf(e);
  vkeyOf(e);
}

// Every curve snarkjs has built: another copy of ffjavascript (circomlibjs bundles an older one)
// resets globalThis.curve_bn128 to null when it loads, which would orphan live worker threads.
const curvesSeen = new Set<Curve>();
function noteCurve(): void {
  const c = (globalThis as { curve_bn128?: Curve | null }).curve_bn128;
  if (c) curvesSeen.add(c);
}

/**
 * Puts the curve where snarkjs finds it, built from the precomputed module (bn128-curve.ts) rather
 * than by snarkjs, which generates the module first; one build for concurrent first callers.
 */
let building: Promise<Curve> | undefined;
async function ensureCurve(): Promise<void> {
  // snarkjs sets globalThis.curve_bn128 to null when it first loads: loaded first, so the curve placed here stays.
  await snarkjsLib();
  if ((globalThis as { curve_bn128?: Curve | null }).curve_bn128) return;
  // On first use too (its engine and the 86 KB module), like snarkjs above.
  building ??= import('./bn128-curve.ts')
    .then(({ buildCachedBn128 }) => buildCachedBn128())
    .finally(() => {
      building = undefined;
    });
  await building;
}

async function curve(): Promise<Curve> {
  await ensureCurve();
  const c = await (await snarkjsLib()).curves.getCurveFromName('bn128');
  noteCurve();
  return c;
}

/** Stops snarkjs's worker threads so that a test or CLI process can exit; the next call rebuilds. */
export async function terminateCurves(): Promise<void> {
  noteCurve();
  const all = [...curvesSeen];
  curvesSeen.clear();
  await Promise.all(all.map((c) => c.terminate()));
}

// ---------------------------------------------------------------------------------------------
// Input validation

const DECIMAL = /^[0-9]{1,78}$/; // r has 77 digits: longer strings are out of range anyway

function fieldElement(value: unknown, what: string): bigint {
  if (typeof value !== 'string' || !DECIMAL.test(value)) throw errors.invalidInput(`${what} must be a decimal string`);
  const n = BigInt(value);
  if (n >= BN254_R) throw errors.fieldOverflow(`${what} must be less than the BN254 field order`);
  return n;
}

/** Checks the inputs against the circuit's declared inputs; returns them in snarkjs's shape. */
function checkInputs(manifest: CircuitManifest, inputs: unknown): Record<string, string | string[]> {
  if (typeof inputs !== 'object' || inputs === null || Array.isArray(inputs)) {
    throw errors.invalidInput('inputs must be an object of decimal strings');
  }
  const given = inputs as Record<string, unknown>;
  const known = new Set(manifest.inputs.map((i) => i.name));
  for (const key of Object.keys(given)) {
    if (!known.has(key)) throw errors.proofFailed(`unknown input for circuit ${manifest.name}: ${key.slice(0, 64)}`);
  }
  const out: Record<string, string | string[]> = {};
  for (const spec of manifest.inputs) {
    const v = Object.hasOwn(given, spec.name) ? given[spec.name] : undefined;
    if (v === undefined) throw errors.proofFailed(`missing input for circuit ${manifest.name}: ${spec.name}`);
    if (spec.length !== undefined) {
      if (!Array.isArray(v) || v.length !== spec.length) {
        throw errors.proofFailed(`input ${spec.name} must be an array of ${spec.length} values`);
      }
      v.forEach((x, i) => fieldElement(x, `input ${spec.name}[${i}]`));
      out[spec.name] = v as string[];
    } else {
      if (Array.isArray(v)) throw errors.proofFailed(`input ${spec.name} must be a single value`);
      fieldElement(v, `input ${spec.name}`);
      out[spec.name] = v as string;
    }
  }
  return out;
}

/** A short reason from a witness-calculator error, without stack or memory dumps. */
function witnessFailure(circuit: string, err: unknown): string {
  const msg = err instanceof Error ? err.message : String(err);
  if (msg.includes('Assert Failed')) {
    // circom appends "Error in template <Name>_<n> line: <l>" lines, innermost first.
    const where = /Error in template (\w+?)_\d+ line: (\d+)/.exec(msg);
    return `inputs do not satisfy the ${circuit} circuit` + (where ? ` (assertion in ${where[1]}, line ${where[2]})` : '');
  }
  const first = msg.split('\n')[0]?.trim() || 'witness calculation failed';
  return `${circuit}: ${first.slice(0, 160)}`;
}

// ---------------------------------------------------------------------------------------------
// Prove

/**
 * Proves `inputs` (named decimal strings, arrays for array signals) for `circuit`.
 * Does what snarkjs's groth16.fullProve does (witness, then prove) in two steps so that only
 * witness failures, which are the caller's doing, become PROOF_FAILED; anything else stays a
 * server error.
 */
export async function generateProof(circuit: string, inputs: CircuitInputs): Promise<ProofResult> {
  const entry = circuitEntry(circuit);
  const checked = checkInputs(entry.manifest, inputs);
  const wtns: MemFile = { type: 'mem' };
  const snarkjs = await snarkjsLib();
  try {
    await snarkjs.wtns.calculate(checked, wasmOf(entry), wtns);
  } catch (err) {
    if (isAppError(err)) throw err;
    throw errors.proofFailed(witnessFailure(entry.manifest.name, err));
  } finally {
    noteCurve();
  }
  await ensureCurve();
  const { proof, publicSignals } = await snarkjs.groth16.prove(zkeyOf(entry), wtns);
  noteCurve();
  return {
    proof: { pi_a: proof.pi_a, pi_b: proof.pi_b, pi_c: proof.pi_c, protocol: 'groth16', curve: 'bn128' },
    publicSignals,
  };
}

// ---------------------------------------------------------------------------------------------
// Verify

const coord = z.string().regex(DECIMAL, 'must be a decimal string');
// Affine points as snarkjs writes them: [x, y, "1"] in G1, [[x0, x1], [y0, y1], ["1", "0"]] in G2.
// The projective coordinate may be omitted; other z values are refused, and so is the point at
// infinity (z = 0 here, and (0, 0), which is how ffjavascript writes it affine: see point()).
const g1 = z.union([z.tuple([coord, coord]), z.tuple([coord, coord, z.literal('1')])]);
const fq2 = z.tuple([coord, coord]);
const g2 = z.union([z.tuple([fq2, fq2]), z.tuple([fq2, fq2, z.tuple([z.literal('1'), z.literal('0')])])]);
export const proofSchema = z.object({
  pi_a: g1,
  pi_b: g2,
  pi_c: g1,
  protocol: z.literal('groth16').optional(),
  curve: z.literal('bn128').optional(),
});
export const publicSignalsSchema = z.array(z.string()).max(64);

function zodReason(e: z.ZodError): string {
  const issue = e.issues[0];
  return issue ? `${issue.path.join('.') || 'value'}: ${issue.message}` : 'malformed';
}

/** Decimal coordinates (nested for G2) as the bigints ffjavascript's `fromObject` takes. */
const bigints = (v: unknown): unknown => (Array.isArray(v) ? v.map(bigints) : BigInt(v as string));

/** Parses a point, refusing coordinates >= q, points off the curve and (G2) outside the subgroup. */
function point(c: Curve, group: 'G1' | 'G2', xy: unknown[], name: string): Uint8Array {
  for (const v of xy.slice(0, 2).flat()) {
    // Coordinates are base-field elements: one >= q is a non-canonical encoding, i.e. malformed.
    if (BigInt(v as string) >= BN254_Q) throw errors.invalidInput(`proof.${name} coordinate is not below the base field order`);
  }
  const G = c[group];
  const p = G.fromObject(bigints(xy.slice(0, 2)));
  // No proof element is the identity: snarkjs would read (0, 0) as it and only fail the pairing.
  if (G.isZero(p)) throw errors.invalidInput(`proof.${name} is the point at infinity`);
  if (!G.isValid(p)) throw errors.invalidInput(`proof.${name} is not a point on the curve`);
  // G2 on BN254 has a cofactor: a point on the twist but outside the order-r subgroup is malformed.
  if (group === 'G2' && !G.isZero(G.timesScalar(p, BN254_R))) {
    throw errors.invalidInput(`proof.${name} is not in the prime-order subgroup`);
  }
  return p;
}

interface VerifyingKey {
  alpha: Uint8Array;
  beta: Uint8Array;
  gamma: Uint8Array;
  delta: Uint8Array;
  /** IC₀ … ICₙ: one more than the public signals. */
  ic: Uint8Array[];
}

/** A snarkjs verification key (JSON, decimal strings) as the curve's points. */
function verifyingKey(c: Curve, e: Loaded): VerifyingKey {
  if (e.key) return e.key;
  const vk = vkeyOf(e) as { vk_alpha_1: unknown; vk_beta_2: unknown; vk_gamma_2: unknown; vk_delta_2: unknown; IC: unknown[] };
  const key = {
    alpha: c.G1.fromObject(bigints(vk.vk_alpha_1)),
    beta: c.G2.fromObject(bigints(vk.vk_beta_2)),
    gamma: c.G2.fromObject(bigints(vk.vk_gamma_2)),
    delta: c.G2.fromObject(bigints(vk.vk_delta_2)),
    ic: vk.IC.map((p) => c.G1.fromObject(bigints(p))),
  };
  if (key.ic.length !== e.manifest.publicSignals.length + 1)
    throw new Error(`${e.manifest.name}: the verification key has ${key.ic.length - 1} public inputs, the manifest ${e.manifest.publicSignals.length}`);
  return (e.key = key);
}

/**
 * Groth16's check, as snarkjs's groth16.verify makes it (groth16_verify.js, on the same
 * ffjavascript curve): e(-A, B)·e(L, γ)·e(C, δ)·e(α, β) = 1 with L = IC₀ + Σ sᵢ·ICᵢ₊₁. L is
 * summed here from scalar multiplications on this thread; snarkjs hands it to its
 * multi-exponentiation, whose round trip through the curve's worker threads took more than half
 * of a one-signal verify (26–33 ms → 10–12 ms here). The pairing product is snarkjs's own call.
 */
function pairingHolds(c: Curve, key: VerifyingKey, signals: bigint[], a: Uint8Array, b: Uint8Array, cc: Uint8Array): Promise<boolean> {
  let l = key.ic[0]!;
  signals.forEach((s, i) => (l = c.G1.add(l, c.G1.timesScalar(key.ic[i + 1]!, s))));
  return c.pairingEq(c.G1.neg(a), b, l, key.gamma, cc, key.delta, key.alpha, key.beta);
}

/**
 * Verifies a Groth16 proof for `circuit`. Returns false for a well-formed proof that does not
 * verify (wrong proof, tampered or foreign public signals); throws INVALID_INPUT (or
 * FIELD_OVERFLOW for a public signal >= r) for anything malformed. It does not compare the
 * public signals with expected values: callers must (e.g. publicSignals[0] = the stored commitment).
 */
export async function verifyProof(circuit: string, proof: unknown, publicSignals: unknown): Promise<boolean> {
  const entry = circuitEntry(circuit);
  const parsedProof = proofSchema.safeParse(proof);
  if (!parsedProof.success) throw errors.invalidInput(`malformed proof: ${zodReason(parsedProof.error)}`);
  const parsedSignals = publicSignalsSchema.safeParse(publicSignals);
  if (!parsedSignals.success) throw errors.invalidInput(`malformed publicSignals: ${zodReason(parsedSignals.error)}`);
  const signals = parsedSignals.data;
  const expected = entry.manifest.publicSignals.length;
  // snarkjs does not check the count: fewer signals would silently be treated as zeros.
  if (signals.length !== expected) {
    throw errors.invalidInput(`circuit ${entry.manifest.name} has ${expected} public signal(s), got ${signals.length}`);
  }
  signals.forEach((s, i) => fieldElement(s, `publicSignals[${i}]`));

  const c = await curve();
  const p = parsedProof.data;
  const a = point(c, 'G1', p.pi_a, 'pi_a');
  const b = point(c, 'G2', p.pi_b, 'pi_b');
  const cc = point(c, 'G1', p.pi_c, 'pi_c');
  const key = verifyingKey(c, entry); // a missing or mismatched key is a server error, outside the try below
  try {
    return await pairingHolds(c, key, signals.map(BigInt), a, b, cc);
  } catch (err) {
    // Everything snarkjs could choke on was checked above; keep the guarantee anyway.
    throw errors.invalidInput(`malformed proof: ${(err instanceof Error ? err.message : String(err)).split('\n')[0]?.slice(0, 120)}`);
  } finally {
    noteCurve();
  }
}
