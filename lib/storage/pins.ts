import { DeleteObjectCommand } from '@aws-sdk/client-s3';
import { DeleteCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { clock } from '#lib/clock.ts';
import { db, tableName } from '#lib/data/client.ts';
import { getItem, isConditionalFailure } from '#lib/data/items.ts';
import { errors } from '#lib/errors.ts';
import { logger } from '#lib/log.ts';
import { fileKey, ownerIndex, type FileRecord } from './files.ts';
import { pinning, type Added, type PinRef } from './pinning.ts';
import { bucket, s3 } from './s3.ts';

/**
 * Pin records: one per CID, `refs` = how many file records point at it. A record and its
 * reference are written in one transaction, and removed in one; the content is unpinned only by
 * whoever moves `refs` to 0 *and* flips the pin to `unpinning` in a conditional write, so two
 * deletes of the last two records cannot both unpin, and an upload cannot join a pin that is
 * being unpinned (it waits or fails with 409 instead).
 */
export interface Pin {
  cid: string;
  refs: number;
  state: 'pinned' | 'unpinning';
  adapter: string;
  ref: PinRef;
  size: number;
  checksum: string;
  /** The upload that created the pin (to tell a new pin from a joined one). */
  createdBy: string;
  /** `files/<cid>` exists: the assembled copy large downloads are redirected to. */
  assembled?: boolean;
  unpinAt?: number;
}

export const pinKey = (cid: string) => ({ pk: `PIN#${cid}`, sk: 'PIN' });
export const assembledKey = (cid: string) => `files/${cid}`;
/** An unpin that has not finished in this long is taken over (its Lambda died). */
const STALE_UNPIN_SECONDS = 60;

export async function getPin(cid: string): Promise<Pin | undefined> {
  const item = await getItem(pinKey(cid));
  return item as unknown as Pin | undefined;
}

/** A pinned CID, or 404 CID_NOT_FOUND (never pinned, unpinned, or being unpinned). */
export async function livePin(cid: string): Promise<Pin> {
  const pin = await getPin(cid);
  if (!pin || pin.state !== 'pinned' || pin.refs < 1) throw errors.cidNotFound();
  return pin;
}

export class PinBusy extends Error {}

/** Writes the file record and its pin reference together. Returns whether this upload created the pin. */
export async function commitRecord(record: FileRecord, added: Added, uploadId: string, adapter: string): Promise<{ created: boolean; pin: Pin }> {
  try {
    await db.send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Put: {
              TableName: tableName,
              Item: { ...fileKey(record.id), ...ownerIndex(record), ...record },
              ConditionExpression: 'attribute_not_exists(pk)',
            },
          },
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
        ],
      }),
    );
  } catch (e) {
    if (isConditionalFailure(e)) throw new PinBusy('the same content is being unpinned');
    throw e;
  }
  const pin = (await getPin(added.cid))!;
  return { created: pin.createdBy === uploadId, pin };
}

/** Removes a record and its reference together, then unpins the CID if that was the last one. */
export async function removeRecord(record: FileRecord): Promise<void> {
  try {
    await db.send(
      new TransactWriteCommand({
        TransactItems: [
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
        ],
      }),
    );
  } catch (e) {
    if (isConditionalFailure(e)) throw errors.cidNotFound(); // deleted concurrently
    throw e;
  }
  await releasePin(record.cid);
}

/** Unpins `cid` if no record references it (or finishes an unpin that went stale). */
export async function releasePin(cid: string): Promise<boolean> {
  const now = clock.nowSeconds();
  let pin: Pin;
  try {
    const out = await db.send(
      new UpdateCommand({
        TableName: tableName,
        Key: pinKey(cid),
        UpdateExpression: 'SET #state = :unpinning, unpinAt = :now',
        ConditionExpression: 'attribute_exists(pk) AND ((refs <= :zero AND #state = :pinned) OR (#state = :unpinning AND unpinAt < :stale))',
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: { ':unpinning': 'unpinning', ':pinned': 'pinned', ':zero': 0, ':now': now, ':stale': now - STALE_UNPIN_SECONDS },
        ReturnValues: 'ALL_NEW',
      }),
    );
    pin = out.Attributes as unknown as Pin;
  } catch (e) {
    if (isConditionalFailure(e)) return false; // still referenced, or someone else is unpinning
    throw e;
  }
  const adapter = await pinning();
  await adapter.unpin(cid, pin.ref);
  await s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: assembledKey(cid) }));
  await db.send(
    new DeleteCommand({
      TableName: tableName,
      Key: pinKey(cid),
      ConditionExpression: '#state = :unpinning',
      ExpressionAttributeNames: { '#state': 'state' },
      ExpressionAttributeValues: { ':unpinning': 'unpinning' },
    }),
  ).catch((e) => {
    if (!isConditionalFailure(e)) throw e;
  });
  logger.info('unpinned', { cid, adapter: adapter.name });
  return true;
}

export async function markAssembled(cid: string): Promise<void> {
  await db.send(
    new UpdateCommand({
      TableName: tableName,
      Key: pinKey(cid),
      UpdateExpression: 'SET assembled = :t',
      ConditionExpression: 'attribute_exists(pk) AND #state = :pinned',
      ExpressionAttributeNames: { '#state': 'state' },
      ExpressionAttributeValues: { ':t': true, ':pinned': 'pinned' },
    }),
  );
}
