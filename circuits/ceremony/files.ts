import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Where the setup's files live:
 *   circuits/setup/phase1.ptau, phase1.json   the phase-1 file (prepared for phase 2) and its record (committed)
 *   circuits/setup/r1cs/<name>.r1cs           each circuit's constraint system (committed; `npm run circuits`)
 *   circuits/artifacts/<name>/                what the Lambda layer ships: wasm, zkey, verification key,
 *                                             circuit.json and the ceremony's transcript.json (committed)
 *   circuits/build/                           compiler output and the phase-2 work in progress (ignored)
 */
const HERE = join(dirname(fileURLToPath(import.meta.url)), '..');
export const REPO_ROOT = join(HERE, '..');
/** The circuits folder; CEREMONY_DIR points a test at a scratch copy (inside the repository: circom reads relative paths). */
export const CIRCUITS_ROOT = process.env.CEREMONY_DIR ?? HERE;
export const NODE_MODULES = join(REPO_ROOT, 'node_modules');
export const BUILD = join(CIRCUITS_ROOT, 'build');
export const SETUP = join(CIRCUITS_ROOT, 'setup');
export const ARTIFACTS = join(CIRCUITS_ROOT, 'artifacts');
export const PHASE1_FILE = join(SETUP, 'phase1.ptau');
export const PHASE1_RECORD = join(SETUP, 'phase1.json');
/** Phase 2 in progress: one folder a ceremony's parties pass from one to the next. */
export const PHASE2_WORK = join(BUILD, 'phase2');

export const r1csFile = (name: string) => join(SETUP, 'r1cs', `${name}.r1cs`);
export const wasmBuildFile = (name: string) => join(BUILD, name, `${name}_js`, `${name}.wasm`);
export const artifactsDir = (name: string) => join(ARTIFACTS, name);
export const transcriptFile = (name: string) => join(ARTIFACTS, name, 'transcript.json');

export const sha256Hex = (data: string | Uint8Array) => createHash('sha256').update(data).digest('hex');
export const fileSha256 = (file: string) => sha256Hex(readFileSync(file));
/** BLAKE2b-512, the hash the Powers of Tau ceremonies publish for their files. */
export const fileBlake2b = (file: string) => createHash('blake2b512').update(readFileSync(file)).digest('hex');
export const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');
export const relative = (file: string) => file.slice(REPO_ROOT.length + 1);
