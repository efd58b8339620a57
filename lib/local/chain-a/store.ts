import { existsSync, mkdirSync, openSync, readFileSync, closeSync, ftruncateSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { open, rename, writeFile, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import type { LedgerTransaction } from './rpc.ts';

/**
 * Where the embedded chain A keeps its state under `$DATA_DIR/chain-a/`:
 *
 * - `log.jsonl`: one line per change, appended as it happens — every executed transaction (its
 *   bytes, to run again, and its ledger entry: what the indexer reads from it), every airdrop,
 *   every account placed by `localTokens`. The ledger the indexer serves is this file; nothing in
 *   it is ever rewritten.
 * - `snapshot.bin`: the runtime's state (`LiteSVM.toBytes`) after the first `applied` lines,
 *   written now and then (every `snapshotEvery` lines) in the background (temp file + rename).
 *
 * A restart loads the snapshot and runs the lines after it again; a crash at any point leaves a
 * snapshot and a log that agree on everything the log holds (a snapshot is queued behind the
 * appends it covers). Writes go through one queue, off the event loop; a change's caller waits for
 * its line (so nothing the chain answered is lost), never for a snapshot.
 */
export type LogRecord =
  /** `tx` (base64) is absent only for lines carried over from ledger.bin, which precede every snapshot. */
  | { k: 'tx'; tx?: string; e: LedgerTransaction }
  /** A transaction the runtime refused after charging its fee; it fails again on replay. */
  | { k: 'failed'; tx: string }
  /** `failed`: the faucet could not pay (it still paid the fee); it fails again on replay. */
  | { k: 'airdrop'; to: string; lamports: string; signature: string; failed?: boolean }
  | { k: 'set'; address: string; data: string; lamports: string; owner: string };

export interface StoredChain {
  snapshot: Uint8Array | undefined;
  /** How many lines of the log the snapshot already holds. */
  applied: number;
  records: LogRecord[];
}

/** snapshot.bin: "SHROUD-CHAIN-A", format, lines applied, snapshot length, snapshot bytes. */
const MAGIC = Buffer.from('SHROUD-CHAIN-A');
const FORMAT = 2;
const LEGACY_FORMAT = 1;

export class ChainStore {
  private queue: Promise<unknown> = Promise.resolve();
  private handle: Promise<FileHandle> | undefined;
  private lines: number;
  private snapshotAt: number;
  /** A failed write: the files no longer follow the runtime, so every later change refuses. */
  private broken: Error | undefined;

  private constructor(
    private readonly dir: string,
    stored: StoredChain,
    private readonly snapshotEvery: number,
  ) {
    this.lines = stored.records.length;
    this.snapshotAt = stored.snapshot ? stored.applied : -1;
  }

  private get logFile() {
    return join(this.dir, 'log.jsonl');
  }
  private get snapshotFile() {
    return join(this.dir, 'snapshot.bin');
  }

  /** Reads what is kept under `dir` (carrying a ledger.bin of the previous format over first). */
  static load(dir: string, snapshotEvery: number): { store: ChainStore; stored: StoredChain } {
    mkdirSync(dir, { recursive: true });
    claim(dir);
    migrateLegacy(dir);
    const snapshotFile = join(dir, 'snapshot.bin');
    const logFile = join(dir, 'log.jsonl');
    let snapshot: Uint8Array | undefined;
    let applied = 0;
    if (existsSync(snapshotFile)) ({ snapshot, applied } = readSnapshot(readFileSync(snapshotFile)));
    const records = existsSync(logFile) ? readLog(logFile) : [];
    if (applied > records.length)
      throw new Error(`chain-a: snapshot.bin holds ${applied} changes but log.jsonl only ${records.length}; move chain-a/ away to start a fresh local chain`);
    const stored = { snapshot, applied, records };
    return { store: new ChainStore(dir, stored, snapshotEvery), stored };
  }

  /** Appends one change; resolves once its line is written. */
  append(record: LogRecord): Promise<void> {
    if (this.broken) return Promise.reject(this.broken);
    this.lines++;
    const line = `${JSON.stringify(record)}\n`;
    return this.enqueue(async () => {
      this.handle ??= open(this.logFile, 'a');
      await (await this.handle).write(line);
    });
  }

  /** Whether the runtime's state should be snapshotted now (every `snapshotEvery` lines). */
  snapshotDue(): boolean {
    return this.snapshotAt < 0 || this.lines - this.snapshotAt >= this.snapshotEvery;
  }

  /**
   * Queues `bytes` (the runtime's state after every line appended so far) as the new snapshot.
   * The promise is for whoever must know it landed (the first one, tests); others ignore it.
   */
  snapshot(bytes: Uint8Array): Promise<void> {
    if (this.broken) return Promise.reject(this.broken);
    const applied = this.lines;
    this.snapshotAt = applied;
    return this.enqueue(async () => {
      await writeFile(`${this.snapshotFile}.tmp`, snapshotBytes(bytes, applied));
      await rename(`${this.snapshotFile}.tmp`, this.snapshotFile);
    });
  }

  /** Resolves once everything queued so far is written. */
  async flush(): Promise<void> {
    await this.queue;
    if (this.broken) throw this.broken;
  }

  async close(): Promise<void> {
    await this.queue;
    const h = this.handle;
    this.handle = undefined;
    if (h) await (await h).close();
  }

  private enqueue(write: () => Promise<void>): Promise<void> {
    const done = this.queue.then(write).catch((e: unknown) => {
      this.broken ??= new Error(`chain-a: writing under ${this.dir} failed (${(e as Error).message}); restart to reload the state kept there`);
      throw this.broken;
    });
    this.queue = done.catch(() => undefined);
    return done;
  }
}

/**
 * One process per chain: two appending to one log would interleave two histories that no replay
 * can follow. `owner.pid` names the process that runs it; a dead owner's claim (a crash) is taken over.
 */
function claim(dir: string) {
  const file = join(dir, 'owner.pid');
  const owner = existsSync(file) ? Number(readFileSync(file, 'utf8')) : undefined;
  if (owner && owner !== process.pid && alive(owner)) {
    throw new Error(`chain-a under ${dir} is run by process ${owner}: one process runs the local chain A of a DATA_DIR`);
  }
  writeFileSync(file, String(process.pid));
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function snapshotBytes(snapshot: Uint8Array, applied: number): Buffer {
  const head = Buffer.alloc(MAGIC.length + 1 + 16);
  MAGIC.copy(head);
  head.writeUInt8(FORMAT, MAGIC.length);
  head.writeBigUInt64LE(BigInt(applied), MAGIC.length + 1);
  head.writeBigUInt64LE(BigInt(snapshot.length), MAGIC.length + 9);
  return Buffer.concat([head, snapshot]);
}

function readSnapshot(buf: Buffer): { snapshot: Uint8Array; applied: number } {
  if (!buf.subarray(0, MAGIC.length).equals(MAGIC) || buf.readUInt8(MAGIC.length) !== FORMAT) {
    throw new Error('chain-a/snapshot.bin is not a snapshot of this format; move chain-a/ away to start a fresh local chain');
  }
  const applied = Number(buf.readBigUInt64LE(MAGIC.length + 1));
  const n = Number(buf.readBigUInt64LE(MAGIC.length + 9));
  const start = MAGIC.length + 17;
  if (buf.length !== start + n) throw new Error('chain-a/snapshot.bin is truncated; move chain-a/ away to start a fresh local chain');
  return { snapshot: buf.subarray(start, start + n), applied };
}

/**
 * Every whole line of the log. A last line without its newline is a write the crash cut short:
 * its change was never answered, so it is dropped (and cut from the file, so that the next append
 * starts a line of its own). A bad line anywhere else is damage, and stops the start.
 */
function readLog(file: string): LogRecord[] {
  const text = readFileSync(file);
  const end = text.lastIndexOf(0x0a) + 1;
  if (end < text.length) {
    const fd = openSync(file, 'r+');
    try {
      ftruncateSync(fd, end);
    } finally {
      closeSync(fd);
    }
  }
  const records: LogRecord[] = [];
  let from = 0;
  for (let at = text.indexOf(0x0a, from); at >= 0 && at < end; at = text.indexOf(0x0a, from)) {
    try {
      records.push(JSON.parse(text.toString('utf8', from, at)) as LogRecord);
    } catch {
      throw new Error(`chain-a/log.jsonl: line ${records.length + 1} is not a change this runtime wrote; move chain-a/ away to start a fresh local chain`);
    }
    from = at + 1;
  }
  return records;
}

/**
 * ledger.bin (format 1: one file rewritten after every change) becomes a snapshot of everything it
 * held plus a log of its ledger; the old file is removed once both are in place.
 */
function migrateLegacy(dir: string) {
  const legacy = join(dir, 'ledger.bin');
  if (!existsSync(legacy)) return;
  const buf = readFileSync(legacy);
  if (!buf.subarray(0, MAGIC.length).equals(MAGIC) || buf.readUInt8(MAGIC.length) !== LEGACY_FORMAT) {
    throw new Error('chain-a/ledger.bin is not a ledger of a known format; move it away to start a fresh local chain');
  }
  const n = Number(buf.readBigUInt64LE(MAGIC.length + 1));
  const start = MAGIC.length + 9;
  const ledger = JSON.parse(buf.subarray(start + n).toString('utf8')) as LedgerTransaction[];
  writeFileSync(join(dir, 'log.jsonl.tmp'), ledger.map((e) => `${JSON.stringify({ k: 'tx', e } satisfies LogRecord)}\n`).join(''));
  writeFileSync(join(dir, 'snapshot.bin.tmp'), snapshotBytes(buf.subarray(start, start + n), ledger.length));
  renameSync(join(dir, 'log.jsonl.tmp'), join(dir, 'log.jsonl'));
  renameSync(join(dir, 'snapshot.bin.tmp'), join(dir, 'snapshot.bin'));
  rmSync(legacy);
}
