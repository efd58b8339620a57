import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { clock } from '#lib/clock.ts';
import { db, tableName } from './client.ts';
import { decoder, deleteItem, isConditionalFailure, putItem, queryPages, readItem } from './items.ts';

/**
 * The upload journal: one item per upload while it writes blocks, so that a crash anywhere
 * between the first block and the end of the upload leaves a trace the sweeper can act on
 * (lib/storage/sweeper.ts). No TTL: a journal left by a crash stays until the sweeper has
 * taken its blocks back.
 *
 *   UPLOAD#<uploadId> / JOURNAL   { startedAt, committedCid?, sweptAt? },
 *                                 with gsi1 = JOURNALS#OPEN#<0-f> / <startedAt>#<uploadId> until swept
 *
 * Opened before the first block is written; `committedCid` is set in the transaction that writes
 * the file record and its pin (lib/data/pins.ts); closed (deleted) once the upload has finished,
 * including its cleanup. An upload is finished cleanly exactly when it has no journal.
 *
 * Open journals are listed oldest first in gsi1, so the sweeper's regular pass reads the few
 * uploads that have not finished instead of every upload in the bucket. The list is split 16 ways
 * (by the upload id's last hex digit) so that no one index partition takes every upload's writes.
 * A journal the sweeper has judged dead leaves the list (`sweptAt`) but stays, so that entries of
 * its upload met later are still recognised as dead.
 */
const journalSchema = z.object({ startedAt: z.number(), committedCid: z.string().optional(), sweptAt: z.number().optional() });
export type UploadJournal = z.infer<typeof journalSchema>;
export const uploadJournalDecoder = decoder('upload journal', journalSchema);

export const journalKey = (uploadId: string) => ({ pk: `UPLOAD#${uploadId}`, sk: 'JOURNAL' });

const OPEN_LISTS = 16;
const openList = (n: number) => `JOURNALS#OPEN#${n.toString(16)}`;
function openListOf(uploadId: string): string {
  const digit = Number.parseInt(uploadId.slice(-1), 16); // upload ids are UUIDs
  return openList(Number.isNaN(digit) ? uploadId.charCodeAt(uploadId.length - 1) % OPEN_LISTS : digit);
}
/** Seconds as a fixed-width sort key (sorts as numbers until the year 33658). */
const sortableSeconds = (s: number) => String(s).padStart(12, '0');

export function openJournal(uploadId: string): Promise<void> {
  const startedAt = clock.nowSeconds();
  return putItem({ ...journalKey(uploadId), startedAt, gsi1pk: openListOf(uploadId), gsi1sk: `${sortableSeconds(startedAt)}#${uploadId}` });
}

export const readJournal = (uploadId: string): Promise<UploadJournal | undefined> => readItem(journalKey(uploadId), uploadJournalDecoder);

export const closeJournal = (uploadId: string): Promise<void> => deleteItem(journalKey(uploadId));

/**
 * Pages of the ids of open journals that began before `beforeSeconds` (the sweeper's candidates),
 * oldest first within each of the 16 lists. Journals written before the list existed are not in
 * it: the sweeper's full pass still finds their uploads.
 */
export async function* openJournalsBefore(beforeSeconds: number): AsyncGenerator<string[]> {
  for (let n = 0; n < OPEN_LISTS; n++) {
    const pages = queryPages({
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :list AND gsi1sk < :before',
      ExpressionAttributeValues: { ':list': openList(n), ':before': sortableSeconds(beforeSeconds) },
      ProjectionExpression: 'pk',
    });
    for await (const page of pages) if (page.length) yield page.map((i) => String(i.pk).slice('UPLOAD#'.length));
  }
}

/** Takes a dead upload's journal off the open list; the journal itself stays (see above). */
export async function markSwept(uploadId: string): Promise<void> {
  try {
    await db.send(
      new UpdateCommand({
        TableName: tableName,
        Key: journalKey(uploadId),
        UpdateExpression: 'SET sweptAt = if_not_exists(sweptAt, :now) REMOVE gsi1pk, gsi1sk',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':now': clock.nowSeconds() },
      }),
    );
  } catch (e) {
    if (!isConditionalFailure(e)) throw e; // closed meanwhile: nothing to take off
  }
}

/** The transaction item that marks the journal committed (part of the record + pin transaction). */
export const commitJournalItem = (uploadId: string, cid: string) => ({
  Update: {
    TableName: tableName,
    Key: journalKey(uploadId),
    UpdateExpression: 'SET committedCid = :cid, startedAt = if_not_exists(startedAt, :now)',
    ExpressionAttributeValues: { ':cid': cid, ':now': clock.nowSeconds() },
  },
});

// ---- the full sweep's place ------------------------------------------------------------------

/**
 * Where the sweeper's full pass is, when it runs in slices (one scheduled run each):
 *
 *   SWEEP#FULL / STATE   { phase?, after?, startedAt?, lastStartedAt?, lastFinishedAt? }
 *
 * `phase` and `after` name the last block or upload a pass in progress dealt with; the next slice
 * lists from there; `startedAt`: when that pass began. `lastStartedAt`, `lastFinishedAt`: when the
 * last whole pass began and ended (seconds; state from before `lastStartedAt` has only the end).
 */
const fullSweepSchema = z.object({
  phase: z.enum(['blocks', 'shards']).optional(),
  after: z.string().optional(),
  startedAt: z.number().optional(),
  lastStartedAt: z.number().optional(),
  lastFinishedAt: z.number().optional(),
});
export type FullSweepState = z.infer<typeof fullSweepSchema>;
const fullSweepDecoder = decoder('full sweep state', fullSweepSchema);
const fullSweepKey = { pk: 'SWEEP#FULL', sk: 'STATE' };

export const readFullSweepState = (): Promise<FullSweepState | undefined> => readItem(fullSweepKey, fullSweepDecoder);

export const saveFullSweepState = (state: FullSweepState): Promise<void> => putItem({ ...fullSweepKey, ...state });
