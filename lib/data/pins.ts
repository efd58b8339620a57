import { DeleteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { clock } from '#lib/clock.ts';
import { db, tableName } from './client.ts';
import { cidLookupItem, cidLookupKey, fileItem, fileKey, type FileRecord } from './files.ts';
import { decoder, isConditionalFailure, readItem, transactWrite } from './items.ts';
import { commitJournalItem } from './upload-journal.ts';

/**
 * Pin records: one per CID, `refs` = how many file records point at it (no TTL):
 *
 *   PIN#<cid> / PIN   Pin
 *
 * A file record and its reference are written in one transaction, and removed in one; a pin
 * moves to `unpinning` only by a conditional write, so exactly one caller unpins it.
 */
const pinRefSchema = z.object({
  /** s3: every block of the DAG, so unpinning needs no DAG walk, and the upload owning their index entries. */
  blocks: z.array(z.string()).optional(),
  owner: z.string().optional(),
  /** s3, CAR layout: how many shards `shards/<owner>/` holds (no `blocks`: the shard index lists them). */
  shards: z.number().int().nonnegative().optional(),
  /**
   * s3, shard index v2: the object holding the file's bytes as uploaded (`shards/<owner>/data`)
   * and its ETag when the upload wrote it from the bytes it hashed — the verified copy large
   * downloads are redirected to.
   */
  copy: z.object({ key: z.string(), etag: z.string() }).optional(),
  /** pinata: its file id (for unpinning) and the CID Pinata computed (for the gateway). */
  pinataId: z.string().optional(),
  pinataCid: z.string().optional(),
});
/** What a pinning adapter needs to find a pinned CID's content again (kept on the pin record). */
export type PinRef = z.infer<typeof pinRefSchema>;

const pinSchema = z.object({
  cid: z.string(),
  refs: z.number(),
  state: z.enum(['pinned', 'unpinning']),
  adapter: z.string(),
  ref: pinRefSchema,
  size: z.number(),
  checksum: z.string(),
  /** The upload that created the pin (to tell a new pin from a joined one). */
  createdBy: z.string(),
  /** `files/<cid>` exists (or, with `ref.copy`, that copy was checked again): the copy large downloads are redirected to. */
  assembled: z.boolean().optional(),
  /** The ETag of that copy as it was when its bytes were checked against the checksum (before `ref.copy.etag`). */
  assembledEtag: z.string().optional(),
  unpinAt: z.number().optional(),
});
export type Pin = z.infer<typeof pinSchema>;
export const pinDecoder = decoder('pin', pinSchema);

const pinKey = (cid: string) => ({ pk: `PIN#${cid}`, sk: 'PIN' });

export const getPin = (cid: string): Promise<Pin | undefined> => readItem(pinKey(cid), pinDecoder);

/**
 * Writes the file record and its CID lookup item (files.ts) and adds its reference to the CID's
 * pin (creating the pin) in one transaction, which also marks the upload's journal committed: the one write that makes a file
 * visible, so a crash leaves either all of it or nothing. False when the pin is being unpinned
 * (nothing was written).
 */
export async function putFileWithPin(
  record: FileRecord,
  added: { cid: string; size: number; ref: PinRef },
  uploadId: string,
  adapter: string,
): Promise<boolean> {
  const failed = await transactWrite([
    { Put: { TableName: tableName, Item: fileItem(record), ConditionExpression: 'attribute_not_exists(pk)' } },
    {
      Update: {
        TableName: tableName,
        Key: pinKey(added.cid),
        UpdateExpression:
          'ADD refs :one SET #state = :pinned, cid = :cid, adapter = if_not_exists(adapter, :adapter), #ref = if_not_exists(#ref, :ref), ' +
          '#size = if_not_exists(#size, :size), checksum = if_not_exists(checksum, :sum), createdBy = if_not_exists(createdBy, :me)',
        ConditionExpression: 'attribute_not_exists(pk) OR #state = :pinned',
        ExpressionAttributeNames: { '#state': 'state', '#ref': 'ref', '#size': 'size' },
        ExpressionAttributeValues: {
          ':one': 1,
          ':pinned': 'pinned',
          ':cid': added.cid,
          ':adapter': adapter,
          ':ref': added.ref,
          ':size': added.size,
          ':sum': record.checksum,
          ':me': uploadId,
        },
      },
    },
    commitJournalItem(uploadId, added.cid),
    { Put: { TableName: tableName, Item: cidLookupItem(record) } },
  ]);
  return failed === -1;
}

/** Removes the file record, its CID lookup item and its pin reference in one transaction; false when the record or pin is gone. */
export async function deleteFileWithPin(record: FileRecord): Promise<boolean> {
  const failed = await transactWrite([
    {
      Delete: {
        TableName: tableName,
        Key: fileKey(record.id),
        ConditionExpression: 'attribute_exists(pk) AND userId = :u',
        ExpressionAttributeValues: { ':u': record.userId },
      },
    },
    {
      Update: {
        TableName: tableName,
        Key: pinKey(record.cid),
        UpdateExpression: 'ADD refs :minus',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':minus': -1 },
      },
    },
    { Delete: { TableName: tableName, Key: cidLookupKey(record) } },
  ]);
  return failed === -1;
}

/**
 * Moves a pin nothing references to `unpinning` (or takes over an unpin older than
 * `staleSeconds`, whose Lambda died). The pin when this call won it, else undefined.
 */
export async function claimUnpin(cid: string, staleSeconds: number): Promise<Pin | undefined> {
  const now = clock.nowSeconds();
  try {
    const out = await db.send(
      new UpdateCommand({
        TableName: tableName,
        Key: pinKey(cid),
        UpdateExpression: 'SET #state = :unpinning, unpinAt = :now',
        ConditionExpression: 'attribute_exists(pk) AND ((refs <= :zero AND #state = :pinned) OR (#state = :unpinning AND unpinAt < :stale))',
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: { ':unpinning': 'unpinning', ':pinned': 'pinned', ':zero': 0, ':now': now, ':stale': now - staleSeconds },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return out.Attributes ? pinDecoder.decode(out.Attributes) : undefined;
  } catch (e) {
    if (isConditionalFailure(e)) return undefined; // still referenced, or someone else is unpinning
    throw e;
  }
}

/** Deletes a pin that is (still) being unpinned; a pin a new upload revived stays. */
export async function deleteUnpinnedPin(cid: string): Promise<void> {
  await db
    .send(
      new DeleteCommand({
        TableName: tableName,
        Key: pinKey(cid),
        ConditionExpression: '#state = :unpinning',
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: { ':unpinning': 'unpinning' },
      }),
    )
    .catch((e) => {
      if (!isConditionalFailure(e)) throw e;
    });
}

/** Records that `files/<cid>` (the assembled copy) exists, while the pin is pinned. */
export async function markAssembled(cid: string, verifiedEtag?: string): Promise<void> {
  await db.send(
    new UpdateCommand({
      TableName: tableName,
      Key: pinKey(cid),
      UpdateExpression: verifiedEtag ? 'SET assembled = :t, assembledEtag = :etag' : 'SET assembled = :t REMOVE assembledEtag',
      ConditionExpression: 'attribute_exists(pk) AND #state = :pinned',
      ExpressionAttributeNames: { '#state': 'state' },
      ExpressionAttributeValues: { ':t': true, ':pinned': 'pinned', ...(verifiedEtag ? { ':etag': verifiedEtag } : {}) },
    }),
  );
}
