import type { CID } from 'multiformats/cid';

/* The replica-target port: what every storage target of replicated pinning offers (S3: replica-targets.ts, Pinata: replica-target-pinata.ts). */

export type BlockCheck = 'ok' | 'missing' | 'corrupt' | 'unreachable';

export interface BlockCheckResult {
  state: BlockCheck;
  /** The block's bytes, checked against its CID (state `ok`). */
  bytes?: Uint8Array;
  /** Why the target could not be asked (state `unreachable`); never holds a secret. */
  reason?: string;
}

/** What a copy or a repair reads from: every block of the DAG (root first) and their verified bytes. */
export interface CopySource {
  readonly blocks: readonly string[];
  /** A block's bytes from a healthy copy (the project's own store first); throws when none is left. */
  read(block: string): Promise<Uint8Array>;
}

/** The copy's journal (lib/data/replica-pins.ts): how many leading blocks the target already holds, so a copy resumes. */
export interface CopyJournal {
  done(): Promise<number>;
  record(done: number): Promise<void>;
}

/**
 * A target that could not do what was asked: `unreachable` (down, timing out, rate-limited past
 * the retries: worth trying again at the next audit) or `failed` (it refused: bad credentials, a
 * CID that is not ours — retrying the same request would not help). The message is the reason
 * the pin's status shows.
 */
export class TargetFailure extends Error {
  constructor(
    readonly target: string,
    readonly state: 'unreachable' | 'failed',
    reason: string,
  ) {
    super(`${target}: ${reason}`);
    this.name = 'TargetFailure';
  }
}

/**
 * One storage target of replicated pins: an independent failure domain that holds complete
 * copies of DAGs under their root CID. Every read is checked against the block's CID here, so
 * callers never see bytes that are not what the CID says.
 */
export interface ReplicaTarget {
  readonly name: string;
  readonly kind: 's3' | 'pinata';
  /** Makes the target hold every block of `src`'s DAG under `root`; TargetFailure when it cannot. */
  copy(root: string, src: CopySource, journal: CopyJournal): Promise<void>;
  /** Reads a block back (a replica's audit, or a healthy source for another's repair). Never throws. */
  check(root: string, block: string): Promise<BlockCheckResult>;
  /** A block's verified bytes, for the storage proof; throws when the replica cannot answer. */
  readBlock(root: string, block: CID): Promise<Uint8Array>;
  /** Puts back `damaged` blocks (missing or corrupted) found by an audit. */
  repair(root: string, damaged: readonly string[], src: CopySource): Promise<void>;
  /** Deletes the replica of `root` (other pins' replicas untouched). */
  release(root: string): Promise<void>;
}
