/**
 * The circuit registry: what circuits exist and where their artifacts are. It reads the
 * `circuit.json` manifests that `npm run ceremony` (circuits/ceremony/) writes next to the artifacts.
 *
 * Artifacts directory, first match wins:
 *   1. env CIRCUITS_DIR;
 *   2. /opt/circuits, the Lambda layer;
 *   3. the repository's circuits/artifacts (resolved from this file, for local runs and tests).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { errors } from '#lib/errors.ts';
import { assertTrustedSetup } from './trusted-setup.ts';

/** The circuit `/api/zk-toolkit/proof/generate` and `/proof/verify` use when none is named. */
export const DEFAULT_CIRCUIT = 'preimage';

export const LAYER_DIR = '/opt/circuits';

export type ArtifactKind = 'wasm' | 'zkey' | 'vkey';

export interface CircuitInput {
  name: string;
  visibility: 'private' | 'public';
  /** Array length for array inputs; absent for scalars. */
  length?: number;
}

export interface ArtifactFile {
  file: string;
  bytes: number;
  sha256: string;
}

/** The content of circuits/artifacts/<name>/circuit.json. */
export interface CircuitManifest {
  name: string;
  description: string;
  /** Names of the public signals, in the order of `publicSignals` (outputs first). */
  publicSignals: string[];
  privateInputs: string[];
  /** Public signals the prover supplies as inputs (a subset of publicSignals). */
  publicInputs: string[];
  inputs: CircuitInput[];
  constraints: number;
  ptauPower: number;
  protocol: 'groth16';
  curve: 'bn128';
  artifacts: Record<ArtifactKind, ArtifactFile>;
  /** The trusted setup its keys come from; transcript.json beside it holds the whole record. */
  ceremony: { kind: 'development' | 'public'; transcript: string };
}

/** What `/api/zk-toolkit/proof/circuits` lists: the manifest, artifacts by file name. */
export type CircuitSummary = Pick<CircuitManifest, 'name' | 'description' | 'publicSignals' | 'privateInputs' | 'publicInputs' | 'inputs' | 'constraints'> & {
  artifacts: Record<ArtifactKind, string>;
};

/** The artifacts directory (see the module comment). */
export function circuitsDir(): string {
  const fromEnv = process.env.CIRCUITS_DIR;
  if (fromEnv) return fromEnv;
  if (existsSync(LAYER_DIR)) return LAYER_DIR;
  // Resolved lazily: in a CommonJS Lambda bundle import.meta.url is empty, but there the layer exists.
  return fileURLToPath(new URL('../../circuits/artifacts/', import.meta.url));
}

const cache = new Map<string, Map<string, CircuitManifest>>();

function load(): Map<string, CircuitManifest> {
  const dir = circuitsDir();
  const hit = cache.get(dir);
  if (hit) return hit;
  // A function of a stage that moves real value refuses development keys (lib/zk/trusted-setup.ts).
  assertTrustedSetup(dir, process.env);
  const found = new Map<string, CircuitManifest>();
  const entries = existsSync(dir) ? readdirSync(dir, { withFileTypes: true }) : [];
  for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    const file = join(dir, entry.name, 'circuit.json');
    if (!entry.isDirectory() || !existsSync(file)) continue;
    const manifest = JSON.parse(readFileSync(file, 'utf8')) as CircuitManifest;
    found.set(manifest.name, manifest);
  }
  // A deployment without artifacts is broken, not empty: say where we looked.
  if (found.size === 0) throw new Error(`no circuit artifacts found in ${dir}`);
  cache.set(dir, found);
  return found;
}

export function listCircuits(): CircuitSummary[] {
  return [...load().values()].map((m) => ({
    name: m.name,
    description: m.description,
    publicSignals: m.publicSignals,
    privateInputs: m.privateInputs,
    publicInputs: m.publicInputs,
    inputs: m.inputs,
    constraints: m.constraints,
    artifacts: { wasm: m.artifacts.wasm.file, zkey: m.artifacts.zkey.file, vkey: m.artifacts.vkey.file },
  }));
}

/** The manifest of a circuit; an unknown name is the caller's mistake (INVALID_INPUT). */
export function getCircuit(name: string): CircuitManifest {
  // Own-property lookup in a Map: names such as "__proto__" or "../x" are simply unknown.
  const manifest = typeof name === 'string' ? load().get(name) : undefined;
  if (!manifest) throw errors.invalidInput(`unknown circuit: ${String(name).slice(0, 64)}`);
  return manifest;
}

/** Absolute path of one artifact of a known circuit. */
export function artifactPath(name: string, artifact: ArtifactKind): string {
  const manifest = getCircuit(name);
  const entry = Object.hasOwn(manifest.artifacts, artifact) ? manifest.artifacts[artifact] : undefined;
  if (!entry) throw errors.invalidInput(`unknown artifact: ${String(artifact).slice(0, 16)}`);
  return join(circuitsDir(), manifest.name, entry.file);
}
