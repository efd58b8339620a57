import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { PHASE1_RECORD, transcriptFile } from './files.ts';

/**
 * A ceremony's record, committed beside what it produced. `kind` is `public` only when phase 1 is
 * a published Powers of Tau file (its hash pinned in phase1.ts) and phase 2 has at least
 * REQUIRED_CONTRIBUTIONS contributions from differently named parties; anything less is
 * `development`, which a stage that moves real value refuses (lib/zk/trusted-setup.ts).
 */
export const REQUIRED_CONTRIBUTIONS = 3;

export type CeremonyKind = 'development' | 'public';

export interface Contribution {
  name: string;
  /** snarkjs's contribution hash (BLAKE2b-512, hex): what the contributor printed and checks. */
  hash: string;
}

export interface Beacon {
  /** The beacon value as given on the command line (hex), e.g. a block hash fixed in advance. */
  hash: string;
  iterationsExp: number;
}

export interface Phase1Record {
  /** `local`: made here with fresh entropy; otherwise the name of a pinned public file. */
  source: string;
  power: number;
  /** BLAKE2b-512 of the phase-1 file as published (public) or as made (local), before phase-2 preparation. */
  blake2b: string;
  /** BLAKE2b-512 of circuits/setup/phase1.ptau, the file prepared for phase 2 that every zkey is checked against. */
  preparedBlake2b: string;
  contributions: Contribution[];
  beacon?: Beacon;
}

export interface Transcript {
  circuit: string;
  kind: CeremonyKind;
  /** Why the kind is `development` (empty for `public`). */
  reasons: string[];
  phase1: Pick<Phase1Record, 'source' | 'power' | 'blake2b' | 'preparedBlake2b'>;
  r1cs: { sha256: string; constraints: number };
  contributions: Contribution[];
  beacon: Beacon;
  zkey: { sha256: string };
  verificationKey: { sha256: string };
}

/** What makes a ceremony `development`; none means `public`. */
export function developmentReasons(phase1: Pick<Phase1Record, 'source'>, contributions: Contribution[]): string[] {
  const reasons: string[] = [];
  if (phase1.source === 'local') reasons.push('phase 1 is a local one, not a published Powers of Tau file');
  const parties = new Set(contributions.map((c) => c.name.trim().toLowerCase()));
  if (parties.size < REQUIRED_CONTRIBUTIONS) {
    reasons.push(`phase 2 has ${parties.size} independent contribution(s), ${REQUIRED_CONTRIBUTIONS} are required`);
  }
  return reasons;
}

export function readPhase1Record(): Phase1Record {
  if (!existsSync(PHASE1_RECORD)) throw new Error('no phase 1 yet: run `npm run ceremony -- phase1 import <file>` or `phase1 local`');
  return JSON.parse(readFileSync(PHASE1_RECORD, 'utf8')) as Phase1Record;
}

export function readTranscript(name: string): Transcript {
  return JSON.parse(readFileSync(transcriptFile(name), 'utf8')) as Transcript;
}

export const writeJson = (file: string, value: unknown) => writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
