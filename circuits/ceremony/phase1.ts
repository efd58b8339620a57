import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { BUILD, PHASE1_FILE, PHASE1_RECORD, SETUP, fileBlake2b, hex, relative } from './files.ts';
import { snarkjs } from './snarkjs.ts';
import { type Beacon, type Contribution, type Phase1Record, writeJson } from './transcript.ts';

/**
 * The Hermez (Polygon zkEVM) Powers of Tau files, prepared for phase 2, by power: their
 * BLAKE2b-512 hashes as snarkjs's README publishes them (54 contributions and a beacon; the
 * sizes the circuits need now and a little room). `phase1 import` accepts only these.
 */
export const PUBLIC_PHASE1: Record<string, { power: number; blake2b: string }> = {
  powersOfTau28_hez_final_13: {
    power: 13,
    blake2b: '58efc8bf2834d04768a3d7ffcd8e1e23d461561729beaac4e3e7a47829a1c9066d5320241e124a1a8e8aa6c75be0ba66f65bc8239a0542ed38e11276f6fdb4d9',
  },
  powersOfTau28_hez_final_14: {
    power: 14,
    blake2b: 'eeefbcf7c3803b523c94112023c7ff89558f9b8e0cf5d6cdcba3ade60f168af4a181c9c21774b94fbae6c90411995f7d854d02ebd93fb66043dbb06f17a831c1',
  },
  powersOfTau28_hez_final_15: {
    power: 15,
    blake2b: '982372c867d229c236091f767e703253249a9b432c1710b4f326306bfa2428a17b06240359606cfe4d580b10a5a1f63fbed499527069c18ae17060472969ae6e',
  },
  powersOfTau28_hez_final_16: {
    power: 16,
    blake2b: '6a6277a2f74e1073601b4f9fed6e1e55226917efb0f0db8a07d98ab01df1ccf43eb0e8c3159432acd4960e2f29fe84a4198501fa54c8dad9e43297453efec125',
  },
};

/** Fresh entropy for one contribution: never written, never logged (snarkjs mixes in 64 bytes of its own). */
export const freshEntropy = () => randomBytes(32).toString('hex');

/** A beacon value from the command line: hex, at least 32 bytes (a block hash is 32). */
export function parseBeacon(value: string | undefined, iterationsExp = 10): Beacon {
  const hash = (value ?? '').replace(/^0x/i, '').toLowerCase();
  if (!/^[0-9a-f]{64,128}$/.test(hash) || hash.length % 2 !== 0) {
    throw new Error('--beacon: the hex of a value nobody could know in advance (e.g. a future block hash), 32 to 64 bytes');
  }
  if (!Number.isInteger(iterationsExp) || iterationsExp < 10 || iterationsExp > 63) throw new Error('--iterations: 10 to 63');
  return { hash, iterationsExp };
}

/** Takes a published phase-1 file, checked against its pinned hash; `minPower` is what the circuits need. */
export function importPhase1(file: string, minPower: number): Phase1Record {
  const blake2b = fileBlake2b(file);
  const known = Object.entries(PUBLIC_PHASE1).find(([, p]) => p.blake2b === blake2b);
  if (!known)
    throw new Error(`${file}: its BLAKE2b-512 (${blake2b.slice(0, 16)}…) is not one of the pinned public files (${Object.keys(PUBLIC_PHASE1).join(', ')})`);
  const [source, { power }] = known;
  if (power < minPower) throw new Error(`${source} holds 2^${power} powers; the circuits need 2^${minPower}`);
  mkdirSync(SETUP, { recursive: true });
  copyFileSync(file, PHASE1_FILE);
  const record: Phase1Record = { source, power, blake2b, preparedBlake2b: blake2b, contributions: [] };
  writeJson(PHASE1_RECORD, record);
  return record;
}

/**
 * A local phase 1: a new accumulator, `contributions` contributions each with fresh entropy, the
 * beacon, then the phase-2 preparation. Development only: one machine saw every secret go by.
 */
export async function localPhase1(power: number, contributions: number, beacon: Beacon, log: (m: string) => void): Promise<Phase1Record> {
  if (!Number.isInteger(contributions) || contributions < 1) throw new Error('--contributions: at least 1');
  if (!Number.isInteger(power) || power < 1 || power > 28) throw new Error('--power: 1 to 28');
  const dir = join(BUILD, 'phase1');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const step = (i: number) => join(dir, `pot${power}_${String(i).padStart(4, '0')}.ptau`);
  const curve = await snarkjs.curves.getCurveFromName('bn128');
  await snarkjs.powersOfTau.newAccumulator(curve, power, step(0));
  const made: Contribution[] = [];
  for (let i = 1; i <= contributions; i++) {
    const name = `local contribution ${i}`;
    const hash = hex(await snarkjs.powersOfTau.contribute(step(i - 1), step(i), name, freshEntropy()));
    made.push({ name, hash });
    log(`phase 1: ${name}: ${hash}`);
    rmSync(step(i - 1));
  }
  const beaconed = step(contributions + 1);
  const response = await snarkjs.powersOfTau.beacon(step(contributions), beaconed, 'final beacon', beacon.hash, beacon.iterationsExp);
  if (!response) throw new Error('phase 1: the beacon was refused');
  log('phase 1: beacon applied; preparing phase 2 (the slow step)');
  const tmp = join(dir, 'prepared.ptau');
  await snarkjs.powersOfTau.preparePhase2(beaconed, tmp);
  mkdirSync(SETUP, { recursive: true });
  renameSync(tmp, PHASE1_FILE);
  const record: Phase1Record = {
    source: 'local',
    power,
    blake2b: fileBlake2b(beaconed),
    preparedBlake2b: fileBlake2b(PHASE1_FILE),
    contributions: made,
    beacon,
  };
  rmSync(dir, { recursive: true, force: true });
  writeJson(PHASE1_RECORD, record);
  log(`phase 1: ${relative(PHASE1_FILE)} written`);
  return record;
}
