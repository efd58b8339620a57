import * as z from 'zod';
import { clock } from '#lib/clock.ts';
import { tableName } from './client.ts';
import { decoder, deleteItem, putItem, readItem } from './items.ts';

/**
 * The upload journal: one item per upload while it writes blocks, so that a crash anywhere
 * between the first block and the end of the upload leaves a trace the sweeper can act on
 * (lib/storage/sweeper.ts). No TTL: a journal left by a crash stays until the sweeper has
 * taken its blocks back.
 *
 *   UPLOAD#<uploadId> / JOURNAL   { startedAt, committedCid? }
 *
 * Opened before the first block is written; `committedCid` is set in the transaction that writes
 * the file record and its pin (lib/data/pins.ts); closed (deleted) once the upload has finished,
 * including its cleanup. An upload is finished cleanly exactly when it has no journal.
 */
const journalSchema = z.object({ startedAt: z.number(), committedCid: z.string().optional() });
export type UploadJournal = z.infer<typeof journalSchema>;
export const uploadJournalDecoder = decoder('upload journal', journalSchema);

export const journalKey = (uploadId: string) => ({ pk: `UPLOAD#${uploadId}`, sk: 'JOURNAL' });

export const openJournal = (uploadId: string): Promise<void> => putItem({ ...journalKey(uploadId), startedAt: clock.nowSeconds() });

export const readJournal = (uploadId: string): Promise<UploadJournal | undefined> => readItem(journalKey(uploadId), uploadJournalDecoder);

export const closeJournal = (uploadId: string): Promise<void> => deleteItem(journalKey(uploadId));

/** The transaction item that marks the journal committed (part of the record + pin transaction). */
export const commitJournalItem = (uploadId: string, cid: string) => ({
  Update: {
    TableName: tableName,
    Key: journalKey(uploadId),
    UpdateExpression: 'SET committedCid = :cid, startedAt = if_not_exists(startedAt, :now)',
    ExpressionAttributeValues: { ':cid': cid, ':now': clock.nowSeconds() },
  },
});
