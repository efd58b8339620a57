import { entriesOf, removeBlockEntries } from '#lib/data/block-index.ts';
import {
  closeJournal,
  type FullSweepState,
  markSwept,
  openJournalsBefore,
  readFullSweepState,
  readJournal,
  saveFullSweepState,
} from '#lib/data/upload-journal.ts';
import { clock } from '#lib/clock.ts';
import { logger } from '#lib/log.ts';
import { pinning } from './pinning.ts';
import { mapLimit } from './pinning-port.ts';
import { S3Pinning } from './pinning-s3.ts';
import { getPin } from './pins.ts';

/**
 * The orphan sweeper: takes back blocks no file can ever reach. Two passes (AWS: EventBridge
 * rules → functions/scheduled/sweep.ts and sweep-full.ts; locally: timers in
 * lib/local/runtime.ts): `sweepStale` every 15 minutes reads only the uploads whose journal is
 * still open (below); the full pass, daily, lists every stored block and shard set — locally whole
 * (`sweepOnce`), on AWS in hourly slices that go on where the last stopped (`sweepFullSlice`).
 *
 * Orphans come from crashes: an upload that died after writing blocks and before (or right after)
 * the transaction that writes its file record leaves blocks, their index entries and its open
 * journal (lib/data/upload-journal.ts). For every stored block the sweeper:
 *
 * 1. decides about each entry's upload: no journal → it finished cleanly (the entry is live; an
 *    upload removes its entries before closing its journal unless they belong to its pin); a
 *    journal committed to a pin that this upload owns → live; any other journal (never committed,
 *    or committed into another upload's pin and not cleaned up) older than ORPHAN_AGE_SECONDS →
 *    dead: its entry is removed. Younger ones are uploads still running: left alone.
 * 2. deletes the block if no entry holds it any more and it was last written more than
 *    ORPHAN_AGE_SECONDS ago — through the same look, delete, look again (and put back) as every
 *    delete (`S3Pinning.deleteIfUnheld`). Entries are written before blocks, so a concurrent
 *    upload re-using the block is always seen by the second look, and a referenced block is never
 *    deleted.
 *
 * The CAR layout (shards.ts) is simpler: an upload's shards are its own, so they go exactly when
 * the upload is judged dead as in 1. (its journal older than ORPHAN_AGE_SECONDS and not the owner
 * of a live pin).
 *
 * Journals of dead uploads are kept (a few bytes per crash): an entry of such an upload that a
 * later pass meets again is still recognised as dead.
 */
export const ORPHAN_AGE_SECONDS = 60 * 60;
/** Between the starts of two full passes (every stored block and shard set, for what the regular one cannot see); the schedules themselves are functions/jobs.ts's. */
export const FULL_SWEEP_INTERVAL_MS = 24 * 60 * 60 * 1000;
/**
 * How early an hourly run may come against the one a day before (EventBridge runs a rule within
 * its minute, a cold start adds seconds): a pass begun at one run is due again at the same run a
 * day later, not an hour after it.
 */
const SCHEDULE_JITTER_MS = 10 * 60 * 1000;

export interface SweepReport {
  blocksSeen: number;
  blocksDeleted: number;
  /** Uploads (CAR layout) whose shards were looked at, and those whose shards were deleted. */
  shardSetsSeen: number;
  shardSetsDeleted: number;
  entriesRemoved: number;
  /** Committed uploads whose journal a crash left open (their pin is theirs): closed. */
  journalsClosed: number;
  /** Blocks a failing dependency kept from being decided this pass (the next pass tries again). */
  failures: number;
}

const emptyReport = (): SweepReport => ({
  blocksSeen: 0,
  blocksDeleted: 0,
  shardSetsSeen: 0,
  shardSetsDeleted: 0,
  entriesRemoved: 0,
  journalsClosed: 0,
  failures: 0,
});

export interface SweepOptions {
  /** Test hook: runs between the look at a block's entries and its delete. */
  beforeDelete?: (block: string) => Promise<void>;
}

type Verdict = 'live' | 'dead';

/** The full pass, whole, in one call (locally, daily; tests). */
export async function sweepOnce(options: SweepOptions = {}): Promise<SweepReport> {
  return (await fullPass(options)).report;
}

/** Where a full pass is: its phase, and the last block (CID) or upload id it dealt with (as recorded between slices). */
export type FullSweepPlace = Required<Pick<FullSweepState, 'phase'>> & Pick<FullSweepState, 'after'>;

interface FullPassOptions extends SweepOptions {
  /** Go on from here instead of the first block. */
  from?: FullSweepPlace;
  /** Stop after the page during which this time (epoch ms, wall clock) passes. */
  deadlineMs?: number;
  /** Keys per listing page (S3's MaxKeys, 1,000 by default). */
  pageSize?: number;
  /** After each page's work: where the pass is (the slices record it there, not only at their end). */
  onPage?: (place: FullSweepPlace) => Promise<void>;
}

/** The full pass, or its part up to `deadlineMs`; `next`, where to go on from, is absent once it reached the end. */
async function fullPass(options: FullPassOptions): Promise<{ report: SweepReport; next?: FullSweepPlace }> {
  const report = emptyReport();
  const adapter = await pinning();
  if (!(adapter instanceof S3Pinning)) return { report }; // another service keeps its own blocks
  const nowSeconds = clock.nowSeconds();
  // Verdicts are remembered for one call: a slice's memory grows with its own pages only.
  const verdicts = new Map<string, Promise<Verdict>>();
  const dead = new Set<string>();
  const verdictOf = (uploadId: string) => {
    let v = verdicts.get(uploadId);
    if (!v) {
      v = judge(uploadId, nowSeconds, report);
      v.then(
        (verdict) => verdict === 'dead' && dead.add(uploadId),
        () => undefined,
      );
      verdicts.set(uploadId, v);
    }
    return v;
  };
  const late = () => options.deadlineMs !== undefined && Date.now() >= options.deadlineMs;
  /** Works through a listing's pages; after each, records the place and stops once late. Where it stopped, or undefined at the end. */
  async function throughPages<T>(phase: FullSweepPlace['phase'], pages: AsyncIterable<T[]>, nameOf: (item: T) => string, work: (item: T) => Promise<void>) {
    for await (const page of pages) {
      await mapLimit(page, 16, work);
      if (!page.length) continue; // the end (an empty listing): nothing to stop after
      const place: FullSweepPlace = { phase, after: nameOf(page[page.length - 1]!) };
      await options.onPage?.(place);
      if (late()) return place;
    }
    return undefined;
  }
  const from = options.from ?? { phase: 'blocks' };
  const listing = (phase: FullSweepPlace['phase']) => ({ after: from.phase === phase ? from.after : undefined, pageSize: options.pageSize });

  let next =
    from.phase === 'blocks'
      ? await throughPages(
          'blocks',
          adapter.store.listPages(listing('blocks')),
          (b) => b.cid,
          async ({ cid: block, lastModifiedMs }) => {
            report.blocksSeen++;
            try {
              await sweepBlock(adapter, block, lastModifiedMs, verdictOf, report, options);
            } catch (e) {
              // One block's failure (a dependency timing out) must not end the pass; nothing was lost.
              report.failures++;
              logger.warn('orphan sweep: block left for the next pass', { block, error: e as Error });
            }
          },
        )
      : undefined;
  next ??= await throughPages(
    'shards',
    adapter.shardUploads(listing('shards')),
    (id) => id,
    async (uploadId) => {
      report.shardSetsSeen++;
      try {
        // Shards belong to their upload alone: they live and die with its verdict.
        if ((await verdictOf(uploadId)) === 'dead') {
          await adapter.dropShards(uploadId);
          report.shardSetsDeleted++;
        }
      } catch (e) {
        report.failures++;
        logger.warn('orphan sweep: shards left for the next pass', { uploadId, error: e as Error });
      }
    },
  );
  // Judged dead: off the open list, so the regular pass does not judge them again (a next full
  // pass still finds anything of theirs that this one failed to delete).
  await mapLimit([...dead], 16, async (uploadId) => {
    await markSwept(uploadId).catch((e: unknown) => logger.warn('orphan sweep: journal left on the open list', { uploadId, error: e as Error }));
  });
  if (report.blocksDeleted || report.shardSetsDeleted || report.entriesRemoved || report.failures) logger.info('orphan sweep', { ...report });
  return { report, next };
}

export type FullSweepSlice = SweepReport & {
  /** `continues`: stopped at its budget, the next slice goes on; `finished`: the pass reached its end; `waiting`: the last pass began less than a day ago. */
  outcome: 'continues' | 'finished' | 'waiting';
};

/**
 * The full pass in slices, for AWS (sweep-full.ts, hourly, 15-minute functions): a slice works
 * for `budgetMs` (then ends its page) and records where it stopped; the next goes on from there,
 * so no pass depends on the bucket being small enough to list in one run. Passes begin
 * FULL_SWEEP_INTERVAL_MS apart (less the schedule's jitter), counted from the last one's start so
 * that the cadence stays daily however many slices a pass takes; a pass longer than that is
 * followed at once.
 */
export async function sweepFullSlice(budgetMs: number, o: { pageSize?: number } = {}): Promise<FullSweepSlice> {
  const state = (await readFullSweepState()) ?? {};
  const now = clock.nowSeconds();
  // State written before passes recorded their start has only when the last one ended.
  const lastStart = state.lastStartedAt ?? state.lastFinishedAt;
  if (!state.phase && lastStart !== undefined && now - lastStart < (FULL_SWEEP_INTERVAL_MS - SCHEDULE_JITTER_MS) / 1000) {
    return { ...emptyReport(), outcome: 'waiting' };
  }
  // A pass in progress keeps the start it recorded; a new one starts now.
  const startedAt = state.phase ? (state.startedAt ?? now) : now;
  const { report, next } = await fullPass({
    from: state.phase ? { phase: state.phase, after: state.after } : undefined,
    deadlineMs: Date.now() + budgetMs,
    pageSize: o.pageSize,
    // Each page's place is recorded as it is done: a slice that fails or times out loses nothing done.
    onPage: (place) => saveFullSweepState({ ...place, startedAt }),
  });
  if (!next) await saveFullSweepState({ lastStartedAt: startedAt, lastFinishedAt: clock.nowSeconds() });
  return { ...report, outcome: next ? 'continues' : 'finished' };
}

/**
 * The regular pass, every 15 minutes. An upload can leave orphans only while its journal is
 * open, so this reads the journals still open an hour after they began (the open list of
 * lib/data/upload-journal.ts) — a handful, however many files are stored — instead of listing
 * every upload in the bucket: a dead one's shards are deleted and its journal taken off the
 * list; one that crashed after its commit is closed. The per-block layout's shared blocks (files
 * stored before CAR shards) and journals from before the open list existed are left to the full
 * pass (`sweepOnce`, daily).
 */
export async function sweepStale(): Promise<SweepReport> {
  const report = emptyReport();
  const adapter = await pinning();
  if (!(adapter instanceof S3Pinning)) return report;
  const nowSeconds = clock.nowSeconds();
  for await (const page of openJournalsBefore(nowSeconds - ORPHAN_AGE_SECONDS)) {
    await mapLimit(page, 16, async (uploadId) => {
      report.shardSetsSeen++;
      try {
        if ((await judge(uploadId, nowSeconds, report)) === 'dead') {
          await adapter.dropShards(uploadId);
          await markSwept(uploadId);
          report.shardSetsDeleted++;
        }
      } catch (e) {
        report.failures++;
        logger.warn('orphan sweep: upload left for the next pass', { uploadId, error: e as Error });
      }
    });
  }
  if (report.shardSetsDeleted || report.journalsClosed || report.failures) logger.info('orphan sweep', { ...report });
  return report;
}

async function sweepBlock(
  adapter: S3Pinning,
  block: string,
  lastModifiedMs: number,
  verdictOf: (uploadId: string) => Promise<Verdict>,
  report: SweepReport,
  options: SweepOptions,
): Promise<void> {
  let holders = 0;
  for (const entry of await entriesOf(block)) {
    if ((await verdictOf(entry.owner)) === 'live') holders++;
    else {
      await removeBlockEntries([block], entry.owner);
      report.entriesRemoved++;
    }
  }
  const oldEnough = clock.nowMs() - lastModifiedMs > ORPHAN_AGE_SECONDS * 1000;
  if (holders || !oldEnough) return;
  const hook = options.beforeDelete;
  if (await adapter.deleteIfUnheld(block, hook && (() => hook(block)))) report.blocksDeleted++;
}

async function judge(uploadId: string, nowSeconds: number, report: SweepReport): Promise<Verdict> {
  const journal = await readJournal(uploadId);
  if (!journal) return 'live';
  if (journal.committedCid) {
    const pin = await getPin(journal.committedCid);
    if (pin?.ref.owner === uploadId) {
      // Its file is there: the crash came after the commit; nothing of it is an orphan.
      await closeJournal(uploadId);
      report.journalsClosed++;
      return 'live';
    }
  }
  return nowSeconds - journal.startedAt > ORPHAN_AGE_SECONDS ? 'dead' : 'live';
}
