/**
 * `npm run ceremony -- <command>`: the Groth16 trusted setup of every circuit (docs/zk.md, "Trusted setup").
 *
 *   phase1 import <file.ptau>                 a published Powers of Tau file, checked against its pinned hash
 *   phase1 local --beacon <hex> [--contributions N] [--power P]
 *                                             a local phase 1 (development only), fresh entropy per contribution
 *   start [--only a,b]                        phase 2's first key of each circuit (from circuits/setup/r1cs)
 *   contribute --name <who>                   one party's contribution to every circuit in progress
 *   finalize --beacon <hex> [--iterations E]  the beacon, the check, the artifacts and their transcripts
 *   verify [--only a,b]                       checks every committed key against its r1cs and phase 1
 *   dev --beacon <hex> [--contributions N] [--power P] [--keep-phase1]
 *                                             all of the above on this machine: a development ceremony
 *
 * Entropy comes from crypto.randomBytes, is handed to snarkjs (which mixes in its own) and is
 * never written or logged. A beacon is a value nobody could know in advance: a block hash at a
 * height announced before the last contribution.
 */
import { existsSync, readFileSync } from 'node:fs';
import { CIRCUITS, PTAU_POWER, type CircuitSpec } from '../catalogue.ts';
import { PHASE2_WORK, relative, r1csFile } from './files.ts';
import { importPhase1, localPhase1, parseBeacon } from './phase1.ts';
import { contribute, finalize, newKey, startPhase2, verifyCircuit } from './phase2.ts';
import { terminateCurve } from './snarkjs.ts';
import { REQUIRED_CONTRIBUTIONS } from './transcript.ts';

const log = (msg: string) => console.log(`[ceremony] ${msg}`);

function option(args: string[], name: string): string | undefined {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
}

function selected(args: string[]): CircuitSpec[] {
  const only = option(args, 'only');
  const names = only ? new Set(only.split(',')) : undefined;
  const specs = CIRCUITS.filter((c) => !names || names.has(c.name));
  const unknown = [...(names ?? [])].filter((n) => !CIRCUITS.some((c) => c.name === n));
  if (unknown.length || specs.length === 0) throw new Error(`unknown circuit(s) ${unknown.join(', ')}; known: ${CIRCUITS.map((c) => c.name).join(', ')}`);
  return specs;
}

/** 2^PTAU_POWER unless `--power` asks for more (or, for a test of the ceremony itself, less). */
const powerOf = (args: string[]) => Number(option(args, 'power') ?? PTAU_POWER);
const beaconOf = (args: string[]) => parseBeacon(option(args, 'beacon'), Number(option(args, 'iterations') ?? 10));
const timed = async <T>(what: string, fn: () => Promise<T>): Promise<T> => {
  const t0 = performance.now();
  const out = await fn();
  log(`${what}: ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  return out;
};

async function verifyAll(specs: CircuitSpec[]): Promise<void> {
  let failed = 0;
  for (const spec of specs) {
    const problems = await timed(`${spec.name}: verified`, () => verifyCircuit(spec.name));
    if (problems.length) {
      failed++;
      log(`${spec.name}: FAILED: ${problems.join('; ')}`);
    }
  }
  if (failed) throw new Error(`${failed} circuit(s) do not check`);
}

async function phase2(specs: CircuitSpec[]): Promise<void> {
  startPhase2(specs);
  for (const spec of specs) await timed(`${spec.name}: first key`, () => newKey(spec));
}

async function main(args: string[]): Promise<void> {
  const [command, sub, file] = args;
  if (command === 'phase1' && sub === 'import') {
    if (!file || !existsSync(file)) throw new Error('phase1 import <file.ptau>: the file to import');
    const record = importPhase1(file, PTAU_POWER);
    log(`phase 1: ${record.source} (2^${record.power}) imported; BLAKE2b-512 ${record.blake2b}`);
  } else if (command === 'phase1' && sub === 'local') {
    const beacon = beaconOf(args);
    await timed('phase 1', () => localPhase1(powerOf(args), Number(option(args, 'contributions') ?? 2), beacon, log));
  } else if (command === 'start') {
    for (const spec of selected(args)) if (!existsSync(r1csFile(spec.name))) throw new Error(`${spec.name}: no r1cs; run \`npm run circuits\` first`);
    await phase2(selected(args));
    log(`phase 2 started in ${relative(PHASE2_WORK)}: pass that folder to the first contributor`);
  } else if (command === 'contribute') {
    await timed('contribution', () => contribute(option(args, 'name') ?? '', log));
    log(`done: keep the hashes above to check them in the transcript, and pass ${relative(PHASE2_WORK)} on`);
  } else if (command === 'finalize') {
    const beacon = beaconOf(args);
    const state = JSON.parse(readFileSync(`${PHASE2_WORK}/state.json`, 'utf8')) as { circuits: Record<string, unknown> };
    for (const spec of CIRCUITS.filter((c) => c.name in state.circuits)) {
      const t = await timed(`${spec.name}: finalized and verified`, () => finalize(spec, beacon));
      log(`${spec.name}: ${t.kind}${t.reasons.length ? ` (${t.reasons.join('; ')})` : ''}`);
    }
  } else if (command === 'verify') {
    await verifyAll(selected(args));
    log('every key checks against its r1cs and phase 1');
  } else if (command === 'dev') {
    const beacon = beaconOf(args);
    const n = Number(option(args, 'contributions') ?? 2);
    const specs = selected(args);
    if (!args.includes('--keep-phase1')) await timed('phase 1', () => localPhase1(powerOf(args), n, beacon, log));
    await phase2(specs);
    for (let i = 1; i <= n; i++) await timed(`phase 2 contribution ${i}`, () => contribute(`development contribution ${i}`, log));
    for (const spec of specs) await timed(`${spec.name}: finalized and verified`, () => finalize(spec, beacon));
    log(`development ceremony done (${n} of ${REQUIRED_CONTRIBUTIONS} required contributions, local phase 1): not for a stage that moves real value`);
  } else {
    throw new Error(
      'usage: npm run ceremony -- phase1 import <file> | phase1 local --beacon <hex> | start | contribute --name <who> | finalize --beacon <hex> | verify | dev --beacon <hex>',
    );
  }
}

try {
  await main(process.argv.slice(2));
} catch (e) {
  console.error(`[ceremony] ${e instanceof Error ? e.message : String(e)}`);
  process.exitCode = 1;
} finally {
  await terminateCurve();
}
