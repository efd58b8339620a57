/**
 * `npm run circuits`: compiles the circuits, runs a local, reproducible trusted-setup ceremony
 * and writes the artifacts that are committed under circuits/artifacts/<name>/ (the content of
 * the Lambda layer mounted at /opt/circuits).
 *
 * Ceremony (development only: every secret is derived from strings in this file, so anyone can
 * recompute the toxic waste and forge proofs; production must use a public ceremony):
 *   phase 1  powersoftau new bn128 2^PTAU_POWER
 *            -> contribution: entropy string PTAU_ENTROPY, applied through the beacon function
 *            -> beacon: hash PTAU_BEACON, 2^BEACON_ITERATIONS_EXP iterations
 *            -> prepare phase2                       (cached in circuits/build/ptau/)
 *   phase 2  zkey new (per circuit)
 *            -> contribution: entropy string ZKEY_ENTROPY(name), applied through the beacon function
 *            -> beacon: hash ZKEY_BEACON, 2^BEACON_ITERATIONS_EXP iterations
 * snarkjs's `contribute` mixes 64 OS-random bytes into the entropy it is given, so fixed entropy
 * strings alone would not reproduce; each contribution is therefore sha256(entropy string) fed
 * to snarkjs's deterministic beacon derivation. Re-running gives byte-identical artifacts.
 *
 * Options: `--force-ptau` rebuilds the phase-1 file; `--only a,b` builds some circuits.
 */
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
// @ts-ignore snarkjs ships no type declarations
import * as snarkjsUntyped from 'snarkjs';

/** The slice of snarkjs this script uses. */
interface SnarkJs {
  curves: { getCurveFromName(name: string): Promise<unknown> };
  powersOfTau: {
    newAccumulator(curve: unknown, power: number, file: string, logger?: unknown): Promise<unknown>;
    beacon(oldFile: string, newFile: string, name: string, hashHex: string, iterExp: number, logger?: unknown): Promise<unknown>;
    preparePhase2(oldFile: string, newFile: string, logger?: unknown): Promise<unknown>;
  };
  zKey: {
    newZKey(r1cs: string, ptau: string, zkey: string, logger?: unknown): Promise<unknown>;
    beacon(oldFile: string, newFile: string, name: string, hashHex: string, iterExp: number, logger?: unknown): Promise<unknown>;
    verifyFromR1cs(r1cs: string, ptau: string, zkey: string, logger?: unknown): Promise<boolean>;
    exportVerificationKey(zkey: string): Promise<unknown>;
  };
  r1cs: { info(file: string): Promise<{ nConstraints: number; nPubInputs: number; nOutputs: number; nPrvInputs: number }> };
  groth16: {
    fullProve(input: unknown, wasm: string, zkey: string): Promise<{ proof: unknown; publicSignals: string[] }>;
    verify(vkey: unknown, publicSignals: string[], proof: unknown): Promise<boolean>;
  };
}
const snarkjs = snarkjsUntyped as unknown as SnarkJs;

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, '..');
const BUILD = join(HERE, 'build');
const ARTIFACTS = join(HERE, 'artifacts');
const NODE_MODULES = join(ROOT, 'node_modules');

// 2^13: membership (depth-20 Poseidon tree) has 4,840 constraints; Groth16 in snarkjs needs a
// domain of at least constraints + public signals + 1, which 2^12 = 4,096 cannot hold.
const PTAU_POWER = 13;
const BEACON_ITERATIONS_EXP = 10;
const CEREMONY_ID = 'shroud local ceremony v1';
const PTAU_ENTROPY = `${CEREMONY_ID} / phase 1 / contribution 1`;
const PTAU_BEACON = `${CEREMONY_ID} / phase 1 / beacon`;
const ZKEY_ENTROPY = (name: string) => `${CEREMONY_ID} / phase 2 / ${name} / contribution 1`;
const ZKEY_BEACON = (name: string) => `${CEREMONY_ID} / phase 2 / ${name} / beacon`;

/** Poseidon arities the circuits use (t = inputs + 1); see trimmedPoseidon(). */
const POSEIDON_MAX_T = 4;

interface InputSpec {
  name: string;
  visibility: 'private' | 'public';
  /** Array length for array inputs; absent for scalars. */
  length?: number;
}

interface CircuitSpec {
  name: string;
  description: string;
  /** Names of publicSignals in order: outputs first, then public inputs (circom's order). */
  publicSignals: string[];
  inputs: InputSpec[];
  /** A satisfying input (or how to compute one), proved and verified at the end of the build as a smoke test. */
  example: Record<string, string | string[]> | (() => Promise<Record<string, string | string[]>>);
}

const DEPTH = 20;
const CIRCUITS: CircuitSpec[] = [
  {
    name: 'password',
    description:
      'Knowledge of a password: commitment = Poseidon(pw_lo, pw_hi, salt), where pw_hi/pw_lo are the first/last 16 bytes ' +
      'of SHA-256(UTF-8 password) read as big-endian integers (each < 2^128) and salt is a field element.',
    publicSignals: ['commitment'],
    inputs: [
      { name: 'pw_lo', visibility: 'private' },
      { name: 'pw_hi', visibility: 'private' },
      { name: 'salt', visibility: 'private' },
    ],
    example: { pw_lo: '1', pw_hi: '2', salt: '3' },
  },
  {
    name: 'preimage',
    description: 'Knowledge of a preimage: hash = Poseidon(secret).',
    publicSignals: ['hash'],
    inputs: [{ name: 'secret', visibility: 'private' }],
    example: { secret: '42' },
  },
  {
    name: 'range',
    description:
      'A committed value lies in a public range: min <= value <= max (unsigned 64-bit integers), ' +
      'commitment = Poseidon(value, blinding).',
    publicSignals: ['commitment', 'min', 'max'],
    inputs: [
      { name: 'value', visibility: 'private' },
      { name: 'blinding', visibility: 'private' },
      { name: 'min', visibility: 'public' },
      { name: 'max', visibility: 'public' },
    ],
    example: { value: '50', blinding: '7', min: '18', max: '120' },
  },
  {
    name: 'membership',
    description:
      `Membership of a leaf in a Poseidon Merkle tree of depth ${DEPTH}: root = fold over levels of ` +
      'Poseidon(left, right), pathIndices[i] = 1 when the node is the right child at level i.',
    publicSignals: ['root'],
    inputs: [
      { name: 'leaf', visibility: 'private' },
      { name: 'pathElements', visibility: 'private', length: DEPTH },
      { name: 'pathIndices', visibility: 'private', length: DEPTH },
    ],
    example: {
      leaf: '5',
      pathElements: Array.from({ length: DEPTH }, (_, i) => String(i + 1)),
      pathIndices: Array.from({ length: DEPTH }, (_, i) => String(i % 2)),
    },
  },
  // Scope-bound variants for attestations (lib/attest): each also outputs nullifier =
  // Poseidon(subject secret, scope), so one subject is attested once per scope.
  {
    name: 'range_scoped',
    description:
      'range with a scope-bound nullifier: min <= value <= max (unsigned 64-bit integers), ' +
      'commitment = Poseidon(value, blinding), nullifier = Poseidon(blinding, scope).',
    publicSignals: ['commitment', 'nullifier', 'min', 'max', 'scope'],
    inputs: [
      { name: 'value', visibility: 'private' },
      { name: 'blinding', visibility: 'private' },
      { name: 'min', visibility: 'public' },
      { name: 'max', visibility: 'public' },
      { name: 'scope', visibility: 'public' },
    ],
    example: { value: '50', blinding: '7', min: '18', max: '120', scope: '9' },
  },
  {
    name: 'preimage_scoped',
    description: 'preimage with a scope-bound nullifier: hash = Poseidon(secret), nullifier = Poseidon(secret, scope).',
    publicSignals: ['hash', 'nullifier', 'scope'],
    inputs: [
      { name: 'secret', visibility: 'private' },
      { name: 'scope', visibility: 'public' },
    ],
    example: { secret: '42', scope: '9' },
  },
  {
    name: 'membership_scoped',
    description:
      `membership with a scope-bound nullifier: the leaf Poseidon(secret) is in a Poseidon Merkle tree of depth ${DEPTH} ` +
      '(as membership), nullifier = Poseidon(secret, scope).',
    publicSignals: ['root', 'nullifier', 'scope'],
    inputs: [
      { name: 'secret', visibility: 'private' },
      { name: 'pathElements', visibility: 'private', length: DEPTH },
      { name: 'pathIndices', visibility: 'private', length: DEPTH },
      { name: 'scope', visibility: 'public' },
    ],
    example: {
      secret: '5',
      pathElements: Array.from({ length: DEPTH }, (_, i) => String(i + 1)),
      pathIndices: Array.from({ length: DEPTH }, (_, i) => String(i % 2)),
      scope: '9',
    },
  },
  {
    name: 'withdraw',
    description:
      `Withdrawal from a shielded pool: commitment = Poseidon(nullifier, secret) is a leaf of a depth-${DEPTH} Poseidon ` +
      'Merkle tree under root, nullifierHash = Poseidon(nullifier); recipient and relayerFee are bound to the proof ' +
      '(squared), pathIndices[i] = 1 when the node is the right child at level i.',
    publicSignals: ['root', 'nullifierHash', 'recipient', 'relayerFee'],
    inputs: [
      { name: 'root', visibility: 'public' },
      { name: 'nullifierHash', visibility: 'public' },
      { name: 'recipient', visibility: 'public' },
      { name: 'relayerFee', visibility: 'public' },
      { name: 'nullifier', visibility: 'private' },
      { name: 'secret', visibility: 'private' },
      { name: 'pathElements', visibility: 'private', length: DEPTH },
      { name: 'pathIndices', visibility: 'private', length: DEPTH },
    ],
    example: withdrawExample,
  },
];

/** A withdrawal of leaf 0 from a tree whose other leaves are zero (siblings 1, 2, ... stand in for the zero hashes). */
async function withdrawExample(): Promise<Record<string, string | string[]>> {
  const { buildPoseidon } = await import('circomlibjs');
  const poseidon = await buildPoseidon();
  const h = (...xs: bigint[]): bigint => poseidon.F.toObject(poseidon(xs));
  const [nullifier, secret] = [11n, 22n];
  const pathElements = Array.from({ length: DEPTH }, (_, i) => BigInt(i + 1));
  let node = h(nullifier, secret);
  for (const sibling of pathElements) node = h(node, sibling);
  return {
    root: node.toString(),
    nullifierHash: h(nullifier).toString(),
    recipient: '12345',
    relayerFee: '0',
    nullifier: nullifier.toString(),
    secret: secret.toString(),
    pathElements: pathElements.map(String),
    pathIndices: Array(DEPTH).fill('0'),
  };
}

const sha256Hex = (data: string | Uint8Array) => createHash('sha256').update(data).digest('hex');
const fileSha256 = (file: string) => sha256Hex(readFileSync(file));
const seconds = (t0: number) => ((performance.now() - t0) / 1000).toFixed(1);
const log = (msg: string) => console.log(`[circuits] ${msg}`);

/**
 * circomlib's poseidon_constants.circom holds the constants of every arity up to t = 17 and circom
 * embeds all of them in each witness wasm (1.6–1.8 MB per circuit). An overlay copy keeping only
 * the branches for t <= POSEIDON_MAX_T (byte-identical to circomlib's) brings each wasm to about
 * 0.5 MB. The overlay directory comes first on circom's library path, so it shadows circomlib's
 * poseidon files only; the tests check the outputs against circomlibjs.
 */
function trimmedPoseidon(overlay: string): void {
  const src = join(NODE_MODULES, 'circomlib', 'circuits');
  const dst = join(overlay, 'circomlib', 'circuits');
  mkdirSync(dst, { recursive: true });
  copyFileSync(join(src, 'poseidon.circom'), join(dst, 'poseidon.circom'));
  const out: string[] = [];
  let skipping = false;
  for (const line of readFileSync(join(src, 'poseidon_constants.circom'), 'utf8').split('\n')) {
    const branch = /^\s*\} else if \(t\s*==\s*(\d+)\) \{/.exec(line);
    if (branch && Number(branch[1]) > POSEIDON_MAX_T) skipping = true;
    else if (skipping && /^\s*\} else \{/.test(line)) skipping = false;
    if (!skipping) out.push(line);
  }
  writeFileSync(join(dst, 'poseidon_constants.circom'), out.join('\n'));
}

function compile(name: string, overlay: string): { r1cs: string; wasm: string } {
  const out = join(BUILD, name);
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  // circom2 runs under WASI with the working directory as its only preopened root: relative paths.
  const rel = (p: string) => p.slice(ROOT.length + 1);
  execFileSync(
    process.execPath,
    [
      join(NODE_MODULES, 'circom2', 'cli.js'),
      rel(join(HERE, `${name}.circom`)),
      '--r1cs',
      '--wasm',
      '--O2', // full linear simplification: membership is 4,840 constraints instead of 10,420
      '-l', rel(overlay),
      '-l', rel(NODE_MODULES),
      '-o', rel(out),
    ],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  return { r1cs: join(out, `${name}.r1cs`), wasm: join(out, `${name}_js`, `${name}.wasm`) };
}

async function ensurePtau(force: boolean): Promise<string> {
  const dir = join(BUILD, 'ptau');
  const final = join(dir, `pot${PTAU_POWER}_final.ptau`);
  if (existsSync(final) && !force) {
    log(`phase 1: cached ${final.slice(ROOT.length + 1)}`);
    return final;
  }
  mkdirSync(dir, { recursive: true });
  const t0 = performance.now();
  const f0 = join(dir, `pot${PTAU_POWER}_0.ptau`);
  const f1 = join(dir, `pot${PTAU_POWER}_1.ptau`);
  const f2 = join(dir, `pot${PTAU_POWER}_2.ptau`);
  const curve = await snarkjs.curves.getCurveFromName('bn128');
  await snarkjs.powersOfTau.newAccumulator(curve, PTAU_POWER, f0);
  await snarkjs.powersOfTau.beacon(f0, f1, 'contribution 1', sha256Hex(PTAU_ENTROPY), BEACON_ITERATIONS_EXP);
  await snarkjs.powersOfTau.beacon(f1, f2, 'final beacon', sha256Hex(PTAU_BEACON), BEACON_ITERATIONS_EXP);
  log(`phase 1: contributions done in ${seconds(t0)} s; preparing phase 2 (the slow step)`);
  const tmp = `${final}.tmp`;
  await snarkjs.powersOfTau.preparePhase2(f2, tmp);
  renameSync(tmp, final); // only a complete file counts as cached
  for (const f of [f0, f1, f2]) rmSync(f, { force: true });
  log(`phase 1: ${final.slice(ROOT.length + 1)} in ${seconds(t0)} s`);
  return final;
}

async function buildCircuit(spec: CircuitSpec, ptau: string, overlay: string): Promise<void> {
  const { name } = spec;
  const t0 = performance.now();
  const { r1cs, wasm } = compile(name, overlay);
  const info = await snarkjs.r1cs.info(r1cs);
  const domain = 2 ** PTAU_POWER;
  if (info.nConstraints + info.nPubInputs + info.nOutputs + 1 > domain) {
    throw new Error(`${name}: ${info.nConstraints} constraints do not fit in 2^${PTAU_POWER}`);
  }
  const declared = spec.inputs.filter((i) => i.visibility === 'public').length;
  if (info.nOutputs + info.nPubInputs !== spec.publicSignals.length || info.nPubInputs !== declared) {
    throw new Error(`${name}: publicSignals in the spec do not match the circuit`);
  }
  log(`${name}: compiled, ${info.nConstraints} constraints (${seconds(t0)} s)`);

  const dir = join(BUILD, name);
  const z0 = join(dir, `${name}_0.zkey`);
  const z1 = join(dir, `${name}_1.zkey`);
  const zFinal = join(dir, `${name}.zkey`);
  await snarkjs.zKey.newZKey(r1cs, ptau, z0);
  await snarkjs.zKey.beacon(z0, z1, 'contribution 1', sha256Hex(ZKEY_ENTROPY(name)), BEACON_ITERATIONS_EXP);
  await snarkjs.zKey.beacon(z1, zFinal, 'final beacon', sha256Hex(ZKEY_BEACON(name)), BEACON_ITERATIONS_EXP);
  if (!(await snarkjs.zKey.verifyFromR1cs(r1cs, ptau, zFinal))) throw new Error(`${name}: zkey does not verify`);
  const vkey = await snarkjs.zKey.exportVerificationKey(zFinal);

  const out = join(ARTIFACTS, name);
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  const files = { wasm: `${name}.wasm`, zkey: `${name}.zkey`, vkey: 'verification_key.json' };
  copyFileSync(wasm, join(out, files.wasm));
  copyFileSync(zFinal, join(out, files.zkey));
  writeFileSync(join(out, files.vkey), `${JSON.stringify(vkey, null, 1)}\n`);

  const artifact = (file: string) => ({ file, bytes: statSync(join(out, file)).size, sha256: fileSha256(join(out, file)) });
  const manifest = {
    name,
    description: spec.description,
    publicSignals: spec.publicSignals,
    privateInputs: spec.inputs.filter((i) => i.visibility === 'private').map((i) => i.name),
    publicInputs: spec.inputs.filter((i) => i.visibility === 'public').map((i) => i.name),
    inputs: spec.inputs,
    constraints: info.nConstraints,
    ptauPower: PTAU_POWER,
    protocol: 'groth16',
    curve: 'bn128',
    artifacts: { wasm: artifact(files.wasm), zkey: artifact(files.zkey), vkey: artifact(files.vkey) },
    ceremony: {
      kind: 'local, deterministic: development only, NOT secure (see circuits/build.ts)',
      ptau: { power: PTAU_POWER, contribution: PTAU_ENTROPY, beacon: sha256Hex(PTAU_BEACON), iterationsExp: BEACON_ITERATIONS_EXP },
      zkey: { contribution: ZKEY_ENTROPY(name), beacon: sha256Hex(ZKEY_BEACON(name)), iterationsExp: BEACON_ITERATIONS_EXP },
    },
  };
  writeFileSync(join(out, 'circuit.json'), `${JSON.stringify(manifest, null, 2)}\n`);

  // Smoke test with the files just written.
  const example = typeof spec.example === 'function' ? await spec.example() : spec.example;
  const { proof, publicSignals } = await snarkjs.groth16.fullProve(example, join(out, files.wasm), join(out, files.zkey));
  if (!(await snarkjs.groth16.verify(vkey, publicSignals, proof))) throw new Error(`${name}: example proof does not verify`);
  for (const f of [z0, z1]) rmSync(f, { force: true });
  log(`${name}: done in ${seconds(t0)} s (wasm ${manifest.artifacts.wasm.bytes} B, zkey ${manifest.artifacts.zkey.bytes} B)`);
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const onlyIdx = args.indexOf('--only');
  const only = onlyIdx >= 0 ? new Set(args[onlyIdx + 1]?.split(',')) : null;
  const selected = CIRCUITS.filter((c) => !only || only.has(c.name));
  if (selected.length === 0) throw new Error(`no circuit selected; known: ${CIRCUITS.map((c) => c.name).join(', ')}`);

  const t0 = performance.now();
  // circomlibjs (the withdraw example) carries an older ffjavascript whose import resets
  // globalThis.curve_bn128: load it before snarkjs builds the curve, or its workers are orphaned.
  await import('circomlibjs');
  mkdirSync(BUILD, { recursive: true });
  const overlay = join(BUILD, 'overlay');
  trimmedPoseidon(overlay);
  const ptau = await ensurePtau(args.includes('--force-ptau'));
  for (const spec of selected) await buildCircuit(spec, ptau, overlay);
  log(`all done in ${seconds(t0)} s`);
}

try {
  await main();
} finally {
  // snarkjs keeps the curve's worker threads alive; without this the process never exits.
  await (globalThis as { curve_bn128?: { terminate(): Promise<void> } }).curve_bn128?.terminate();
}
