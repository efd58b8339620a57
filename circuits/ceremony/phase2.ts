import { isDeepStrictEqual } from 'node:util';
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CircuitSpec } from '../catalogue.ts';
import { PHASE1_FILE, PHASE2_WORK, artifactsDir, fileBlake2b, fileSha256, hex, r1csFile, transcriptFile, wasmBuildFile } from './files.ts';
import { freshEntropy } from './phase1.ts';
import { capturingLogger, snarkjs } from './snarkjs.ts';
import { type Beacon, type Contribution, type Transcript, developmentReasons, readPhase1Record, readTranscript, writeJson } from './transcript.ts';

/**
 * Phase 2, circuit by circuit. The work folder (circuits/build/phase2) is what the parties pass
 * from one to the next: `start` makes each circuit's first key from its r1cs and phase 1, each
 * `contribute` adds one contribution with fresh entropy, `finalize` applies the beacon, checks the
 * result against the r1cs and phase 1, and writes the artifacts with their transcript.
 */
interface CircuitWork {
  r1csSha256: string;
  /** Key files in the work folder, oldest first; the last is the current one. */
  zkeys: string[];
  contributions: Contribution[];
}

interface WorkState {
  phase1Blake2b: string;
  circuits: Record<string, CircuitWork>;
}

const STATE = join(PHASE2_WORK, 'state.json');
const readState = (): WorkState => {
  if (!existsSync(STATE)) throw new Error('no phase 2 in progress: run `npm run ceremony -- start` (or receive the work folder from the previous party)');
  return JSON.parse(readFileSync(STATE, 'utf8')) as WorkState;
};
const keyFile = (name: string, i: number) => join(PHASE2_WORK, `${name}_${String(i).padStart(4, '0')}.zkey`);

export function startPhase2(specs: CircuitSpec[]): void {
  const phase1 = readPhase1Record();
  if (fileBlake2b(PHASE1_FILE) !== phase1.preparedBlake2b) throw new Error('circuits/setup/phase1.ptau does not match phase1.json');
  rmSync(PHASE2_WORK, { recursive: true, force: true });
  mkdirSync(PHASE2_WORK, { recursive: true });
  writeJson(STATE, { phase1Blake2b: phase1.preparedBlake2b, circuits: {} } satisfies WorkState);
}

/** The first key of one circuit (snarkjs `zkey new`), from its committed r1cs and phase 1. */
export async function newKey(spec: CircuitSpec): Promise<void> {
  const state = readState();
  const r1cs = r1csFile(spec.name);
  if (!existsSync(r1cs)) throw new Error(`${spec.name}: no r1cs; run \`npm run circuits\` first`);
  const info = await snarkjs.r1cs.info(r1cs);
  const power = readPhase1Record().power;
  if (info.nConstraints + info.nPubInputs + info.nOutputs + 1 > 2 ** power) {
    throw new Error(`${spec.name}: ${info.nConstraints} constraints do not fit in phase 1's 2^${power}`);
  }
  // snarkjs reports some failures by its logger and a return value, not by throwing.
  const made = await snarkjs.zKey.newZKey(r1cs, PHASE1_FILE, keyFile(spec.name, 0));
  if (made === -1 || !existsSync(keyFile(spec.name, 0))) throw new Error(`${spec.name}: snarkjs could not make its first key`);
  state.circuits[spec.name] = { r1csSha256: fileSha256(r1cs), zkeys: [keyFile(spec.name, 0).slice(PHASE2_WORK.length + 1)], contributions: [] };
  writeJson(STATE, state);
}

/** One party's contribution to every circuit in progress; returns each circuit's contribution hash. */
export async function contribute(name: string, log: (m: string) => void): Promise<Record<string, string>> {
  if (!name.trim()) throw new Error('--name: who contributes (it is recorded in the key and the transcript)');
  const state = readState();
  const hashes: Record<string, string> = {};
  for (const [circuit, work] of Object.entries(state.circuits)) {
    if (work.contributions.some((c) => c.name.trim().toLowerCase() === name.trim().toLowerCase())) {
      throw new Error(`${circuit}: ${name} has contributed already; each party contributes once`);
    }
    const next = keyFile(circuit, work.zkeys.length);
    const t0 = performance.now();
    const hash = hex(await snarkjs.zKey.contribute(join(PHASE2_WORK, work.zkeys.at(-1)!), next, name, freshEntropy()));
    work.zkeys.push(next.slice(PHASE2_WORK.length + 1));
    work.contributions.push({ name, hash });
    hashes[circuit] = hash;
    log(`${circuit}: contribution of ${name}: ${hash} (${((performance.now() - t0) / 1000).toFixed(1)} s)`);
    writeJson(STATE, state);
  }
  return hashes;
}

/** Applies the beacon to one circuit, verifies the key and writes its artifacts and transcript. */
export async function finalize(spec: CircuitSpec, beacon: Beacon): Promise<Transcript> {
  const { name } = spec;
  const state = readState();
  const work = state.circuits[name];
  if (!work) throw new Error(`${name}: not in the phase 2 in progress`);
  if (work.r1csSha256 !== fileSha256(r1csFile(name))) throw new Error(`${name}: its r1cs changed since phase 2 started; start again`);
  if (!existsSync(wasmBuildFile(name))) throw new Error(`${name}: no compiled wasm; run \`npm run circuits\` first`);
  const final = join(PHASE2_WORK, `${name}_final.zkey`);
  const done = await snarkjs.zKey.beacon(join(PHASE2_WORK, work.zkeys.at(-1)!), final, 'final beacon', beacon.hash, beacon.iterationsExp);
  if (!done) throw new Error(`${name}: the beacon was refused`);

  const out = artifactsDir(name);
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  const files = { wasm: `${name}.wasm`, zkey: `${name}.zkey`, vkey: 'verification_key.json' };
  copyFileSync(wasmBuildFile(name), join(out, files.wasm));
  copyFileSync(final, join(out, files.zkey));
  writeFileSync(join(out, files.vkey), `${JSON.stringify(await snarkjs.zKey.exportVerificationKey(final), null, 1)}\n`);

  const phase1 = readPhase1Record();
  const info = await snarkjs.r1cs.info(r1csFile(name));
  const reasons = developmentReasons(phase1, work.contributions);
  const transcript: Transcript = {
    circuit: name,
    kind: reasons.length ? 'development' : 'public',
    reasons,
    phase1: { source: phase1.source, power: phase1.power, blake2b: phase1.blake2b, preparedBlake2b: phase1.preparedBlake2b },
    r1cs: { sha256: work.r1csSha256, constraints: info.nConstraints },
    contributions: work.contributions,
    beacon,
    zkey: { sha256: fileSha256(join(out, files.zkey)) },
    verificationKey: { sha256: fileSha256(join(out, files.vkey)) },
  };
  writeJson(transcriptFile(name), transcript);

  const artifact = (file: string) => ({ file, bytes: statSync(join(out, file)).size, sha256: fileSha256(join(out, file)) });
  writeJson(join(out, 'circuit.json'), {
    name,
    description: spec.description,
    publicSignals: spec.publicSignals,
    privateInputs: spec.inputs.filter((i) => i.visibility === 'private').map((i) => i.name),
    publicInputs: spec.inputs.filter((i) => i.visibility === 'public').map((i) => i.name),
    inputs: spec.inputs,
    constraints: info.nConstraints,
    ptauPower: phase1.power,
    protocol: 'groth16',
    curve: 'bn128',
    artifacts: { wasm: artifact(files.wasm), zkey: artifact(files.zkey), vkey: artifact(files.vkey) },
    ceremony: { kind: transcript.kind, transcript: 'transcript.json' },
  });

  const problems = await verifyCircuit(name);
  if (problems.length) throw new Error(`${name}: the finished key does not check: ${problems.join('; ')}`);
  // The key works end to end: the example proves and verifies with the files just written.
  const example = typeof spec.example === 'function' ? await spec.example() : spec.example;
  const vkey = JSON.parse(readFileSync(join(out, files.vkey), 'utf8'));
  const { proof, publicSignals } = await snarkjs.groth16.fullProve(example, join(out, files.wasm), join(out, files.zkey));
  if (!(await snarkjs.groth16.verify(vkey, publicSignals, proof))) throw new Error(`${name}: the example proof does not verify`);
  return transcript;
}

/** What snarkjs's verification logged: each contribution's name and hash, and the beacon. */
export function readVerificationLog(lines: string[]): { contributions: Contribution[]; beacon?: Beacon & { name: string } } {
  const numbered: [number, Contribution][] = [];
  let beacon: (Beacon & { name: string }) | undefined;
  for (let i = 0; i < lines.length; i++) {
    const head = /^contribution #(\d+) (.*):$/.exec(lines[i]!.trim());
    if (!head) continue;
    const hash = lines
      .slice(i + 1, i + 5)
      .map((l) => l.replace(/\s+/g, ''))
      .join('');
    const generator = /^Beacon generator: ([0-9a-f]+)$/.exec(lines[i + 5]?.trim() ?? '');
    const iterations = /^Beacon iterations Exp: (\d+)$/.exec(lines[i + 6]?.trim() ?? '');
    if (generator && iterations) beacon = { name: head[2]!, hash: generator[1]!, iterationsExp: Number(iterations[1]) };
    else numbered.push([Number(head[1]), { name: head[2]!, hash }]);
  }
  // snarkjs logs the newest contribution first.
  return { contributions: numbered.sort((a, b) => a[0] - b[0]).map(([, c]) => c), beacon };
}

/**
 * Everything that can be checked of one circuit's committed setup; the problems found (none when
 * it holds): the files' hashes against the transcript, the key against its r1cs and phase 1
 * (snarkjs `zkey verify`: every contribution's proof of knowledge and the beacon), the
 * contributions the key itself records against the transcript's, the verification key against
 * the one the key exports, and the kind against what the transcript shows.
 */
export async function verifyCircuit(name: string): Promise<string[]> {
  const problems: string[] = [];
  const out = artifactsDir(name);
  const transcript = readTranscript(name);
  const phase1 = readPhase1Record();
  const zkey = join(out, `${name}.zkey`);
  const vkeyFile = join(out, 'verification_key.json');
  if (fileBlake2b(PHASE1_FILE) !== phase1.preparedBlake2b) problems.push('circuits/setup/phase1.ptau does not match phase1.json');
  if (!isDeepStrictEqual(transcript.phase1, { source: phase1.source, power: phase1.power, blake2b: phase1.blake2b, preparedBlake2b: phase1.preparedBlake2b })) {
    problems.push('the transcript names another phase 1');
  }
  if (fileSha256(r1csFile(name)) !== transcript.r1cs.sha256) problems.push('the r1cs is not the one the transcript names');
  if (fileSha256(zkey) !== transcript.zkey.sha256) problems.push('the zkey is not the one the transcript names');
  if (fileSha256(vkeyFile) !== transcript.verificationKey.sha256) problems.push('the verification key is not the one the transcript names');
  const logger = capturingLogger();
  if (!(await snarkjs.zKey.verifyFromR1cs(r1csFile(name), PHASE1_FILE, zkey, logger))) {
    problems.push(`zkey verify failed: ${logger.lines.filter((l) => /INVALID|not/i.test(l)).join(' ') || 'see snarkjs'}`);
  } else {
    const seen = readVerificationLog(logger.lines);
    if (!isDeepStrictEqual(seen.contributions, transcript.contributions)) problems.push('the key records other contributions than the transcript');
    if (!seen.beacon || seen.beacon.hash !== transcript.beacon.hash || seen.beacon.iterationsExp !== transcript.beacon.iterationsExp) {
      problems.push('the key records another beacon than the transcript');
    }
  }
  const exported = await snarkjs.zKey.exportVerificationKey(zkey);
  if (!isDeepStrictEqual(exported, JSON.parse(readFileSync(vkeyFile, 'utf8')))) problems.push('the verification key is not the one the zkey exports');
  const reasons = developmentReasons(phase1, transcript.contributions);
  if (transcript.kind !== (reasons.length ? 'development' : 'public') || !isDeepStrictEqual(transcript.reasons, reasons)) {
    problems.push(`the transcript says ${transcript.kind}, its facts say ${reasons.length ? `development (${reasons.join('; ')})` : 'public'}`);
  }
  const manifest = JSON.parse(readFileSync(join(out, 'circuit.json'), 'utf8')) as { ceremony?: { kind?: string } };
  if (manifest.ceremony?.kind !== transcript.kind) problems.push('circuit.json states another kind than the transcript');
  return problems;
}
