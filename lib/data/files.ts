import * as z from 'zod';
import { clock } from '#lib/clock.ts';
import { queryPage } from './query-page.ts';
import { tableName } from './client.ts';
import { decoder, listPartition, putItem, queryAll, queryPages, readItem, transactWrite } from './items.ts';

/**
 * File records: one per upload, whichever variant made it (no TTL: a file lives until deleted).
 *
 *   FILE#<id> / FILE                               FileRecord, with gsi1 = FILES#<userId> / <createdAt>#<id>
 *   FILECIDS#<userId> / <cid>#<createdAt>#<id>     { fileId }: the owner's files by CID
 *   FILECIDS#<userId> / !INDEXED                   { at }: every record of the owner has its lookup item
 *
 * The owner's files are the gsi1 partition, sorted by creation time. Records are written and
 * removed together with their pin reference and their CID lookup item (pins.ts).
 */
const fileRecordSchema = z.object({
  id: z.string(),
  userId: z.string(),
  cid: z.string(),
  filename: z.string(),
  /** Size and SHA-256 (lower-case hex) of the stored bytes (the client's ciphertext). */
  size: z.number(),
  checksum: z.string(),
  createdAt: z.string(),
  /** Guarded by a proof of the password behind `commitment`. */
  zkEnabled: z.boolean(),
  commitment: z.string().optional(),
  /** Kept for the owner's client (AES-GCM iv and PBKDF2 salt, base64). */
  iv: z.string().optional(),
  salt: z.string().optional(),
  /** The variant that uploaded it (informational: both variants serve every file). */
  variant: z.enum(['A', 'B']),
});
export type FileRecord = z.infer<typeof fileRecordSchema>;
export const fileRecordDecoder = decoder('file record', fileRecordSchema);

export const fileKey = (id: string) => ({ pk: `FILE#${id}`, sk: 'FILE' });
const ownerPartition = (userId: string) => `FILES#${userId}`;
const ownerIndex = (r: Pick<FileRecord, 'userId' | 'createdAt' | 'id'>) => ({ gsi1pk: ownerPartition(r.userId), gsi1sk: `${r.createdAt}#${r.id}` });

/** The item of a record, with its owner index. */
export const fileItem = (r: FileRecord) => ({ ...fileKey(r.id), ...ownerIndex(r), ...r });

export const getFile = (id: string): Promise<FileRecord | undefined> => readItem(fileKey(id), fileRecordDecoder);

/** The owner's files, newest first (every one: the lookup backfill; listings page). */
export const listFilesOf = (userId: string): Promise<FileRecord[]> =>
  listPartition(ownerPartition(userId), fileRecordDecoder, { index: 'gsi1', newestFirst: true });

/** One page of the owner's files, newest first; `cursor` is the previous page's `nextCursor`. */
export async function pageFilesOf(userId: string, limit: number, cursor?: string): Promise<{ files: FileRecord[]; nextCursor: string | null }> {
  const page = await queryPage({ pk: ownerPartition(userId), index: 'gsi1', newestFirst: true, limit, cursor });
  return { files: page.items.map((i) => fileRecordDecoder.decode(i)), nextCursor: page.nextCursor };
}

// ---- the owner's files by CID ---------------------------------------------------------------

/**
 * One lookup item per record, written and deleted in the record's own transactions (pins.ts), so
 * "the owner's newest file with this CID" is one Query (Limit 1) and one GetItem, whatever the
 * owner's file count. The sort key ends the CID with `#`: no CID can match another's prefix.
 */
const cidPartition = (userId: string) => `FILECIDS#${userId}`;
/**
 * Set once every record of the owner has its lookup item (records written before lookup items
 * existed get theirs on the owner's first miss). Holds no `#`, so no `<cid>#` prefix reaches it.
 */
const indexedMarkerKey = (userId: string) => ({ pk: cidPartition(userId), sk: '!INDEXED' });
const markerDecoder = decoder('file CID index marker', z.object({ at: z.string() }));
/**
 * For the first hour after an owner's marker is set, a miss also indexes the owner's records
 * created since shortly before it: while a deploy rolls out, a function not yet updated (an
 * upload) may still write records without lookup items after an updated one (a download by CID)
 * has set the marker. Renaming the marker would index every owner again, should a rollout ever
 * take longer.
 */
const SETTLING_MS = 60 * 60_000;
const SETTLING_MARGIN_MS = 15 * 60_000;

export const cidLookupKey = (r: Pick<FileRecord, 'userId' | 'cid' | 'createdAt' | 'id'>) => ({
  pk: cidPartition(r.userId),
  sk: `${r.cid}#${r.createdAt}#${r.id}`,
});
export const cidLookupItem = (r: FileRecord) => ({ ...cidLookupKey(r), fileId: r.id });
const cidLookupDecoder = decoder('file CID lookup', z.object({ pk: z.string(), sk: z.string(), fileId: z.string() }));

/** Records indexed per transaction by the backfill: a lookup Put and a ConditionCheck each (100 items at most). */
const BACKFILL_BATCH = 25;

/**
 * The owner's newest record with this CID; undefined when the owner has none (whoever else
 * stores it). A hit is two reads; a miss is two once the owner's marker is an hour old.
 */
export async function newestFileWithCid(userId: string, cid: string): Promise<FileRecord | undefined> {
  // No CID holds a `#`, and one that did could reach into the `<createdAt>` part of a key.
  if (cid.includes('#')) return undefined;
  const found = await findIndexed(userId, cid);
  if (found) return found;
  // Read only on a miss: a hit (every download) needs no marker.
  const marker = await readItem(indexedMarkerKey(userId), markerDecoder);
  if (!marker) await indexOwnerFiles(userId);
  else if (clock.nowMs() - Date.parse(marker.at) < SETTLING_MS)
    await indexRecordsSince(userId, new Date(Date.parse(marker.at) - SETTLING_MARGIN_MS).toISOString());
  else return undefined;
  return findIndexed(userId, cid);
}

async function findIndexed(userId: string, cid: string): Promise<FileRecord | undefined> {
  const newestFirst = queryPages({
    KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :prefix)',
    ExpressionAttributeNames: { '#pk': 'pk', '#sk': 'sk' },
    ExpressionAttributeValues: { ':pk': cidPartition(userId), ':prefix': `${cid}#` },
    ScanIndexForward: false,
    Limit: 1,
    ConsistentRead: true,
  });
  for await (const page of newestFirst) {
    for (const raw of page) {
      const lookup = cidLookupDecoder.decode(raw);
      const record = await getFile(lookup.fileId);
      if (record?.userId === userId && record.cid === cid) return record;
      // A lookup item whose record is gone: only a delete by code older than lookup items (during
      // a deploy) leaves one. Removed only if the record is absent *in a transaction*: a plain read
      // may miss the record of a write transaction still being applied, which this then waits for.
      // Best effort: left behind, it is only skipped again.
      if (!record)
        await transactWrite([
          { Delete: { TableName: tableName, Key: { pk: lookup.pk, sk: lookup.sk } } },
          { ConditionCheck: { TableName: tableName, Key: fileKey(lookup.fileId), ConditionExpression: 'attribute_not_exists(pk)' } },
        ]).catch(() => undefined);
    }
  }
  return undefined;
}

/**
 * Writes the lookup items the owner's records lack, then the marker: O(n) once per owner. Each
 * lookup item is written with a check that its record still exists, in one transaction, so a
 * record deleted after the listing gets none (the delete's transaction and this one serialize).
 */
async function indexOwnerFiles(userId: string): Promise<void> {
  const [records, indexed] = await Promise.all([
    listFilesOf(userId),
    queryAll({
      KeyConditionExpression: '#pk = :pk',
      ExpressionAttributeNames: { '#pk': 'pk', '#sk': 'sk' },
      ExpressionAttributeValues: { ':pk': cidPartition(userId) },
      ProjectionExpression: '#sk',
      ConsistentRead: true,
    }),
  ]);
  const have = new Set(indexed.map((i) => i.sk));
  // Newest first (as listed): a backfill cut short (a timeout) never leaves an older record of a
  // CID indexed and a newer one not, so a hit before the marker is still the newest.
  await indexRecords(records.filter((r) => !have.has(cidLookupKey(r).sk)));
  await putItem({ ...indexedMarkerKey(userId), at: clock.now().toISOString() });
}

/** Writes (again) the lookup items of the owner's records created since `sinceIso` (the settling hour above). */
async function indexRecordsSince(userId: string, sinceIso: string): Promise<void> {
  const recent = await queryAll({
    IndexName: 'gsi1',
    KeyConditionExpression: 'gsi1pk = :pk AND gsi1sk >= :since',
    ExpressionAttributeValues: { ':pk': ownerPartition(userId), ':since': sinceIso },
    ScanIndexForward: false,
  });
  await indexRecords(recent.map((i) => fileRecordDecoder.decode(i)));
}

/** Writes the records' lookup items, BACKFILL_BATCH to a transaction, in the order given. */
async function indexRecords(records: FileRecord[]): Promise<void> {
  for (let i = 0; i < records.length; i += BACKFILL_BATCH) await indexBatch(records.slice(i, i + BACKFILL_BATCH));
}

async function indexBatch(batch: FileRecord[]): Promise<void> {
  let left = batch;
  while (left.length) {
    const failed = await transactWrite(
      left.flatMap((r) => [
        { Put: { TableName: tableName, Item: cidLookupItem(r) } },
        {
          ConditionCheck: {
            TableName: tableName,
            Key: fileKey(r.id),
            ConditionExpression: 'attribute_exists(pk) AND userId = :u',
            ExpressionAttributeValues: { ':u': r.userId },
          },
        },
      ]),
    );
    if (failed === -1) return;
    // Only the checks have conditions: the record at failed / 2 was deleted meanwhile, and gets no lookup item.
    const gone = Math.floor(failed / 2);
    left = left.filter((_, i) => i !== gone);
  }
}
