import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { db, tableName } from './client.ts';
import { allOf, decoder, deleteItem, isConditionalFailure, presentAndLive, putNew, ttlIn, withCondition } from './items.ts';

/**
 * Presigned uploads waiting to be finalised:
 *
 *   UPLOAD#<uploadId> / UPLOAD   PendingUpload
 *
 * TTL: an hour past the presigned URL's expiry. Finalising claims the item once (pending →
 * finalizing, by its owner, while live), then deletes it.
 */
const UPLOAD_KEPT_SECONDS = 3600;

const pendingUploadSchema = z.object({
  userId: z.string(),
  filename: z.string().optional(),
  state: z.enum(['pending', 'finalizing']),
  /** When the presigned URL expires (ISO 8601). */
  expiresAt: z.string(),
});
export type PendingUpload = z.infer<typeof pendingUploadSchema>;
export const pendingUploadDecoder = decoder('pending upload', pendingUploadSchema);

const key = (id: string) => ({ pk: `UPLOAD#${id}`, sk: 'UPLOAD' });

export async function putPendingUpload(id: string, upload: Omit<PendingUpload, 'state'>, urlSeconds: number): Promise<void> {
  await putNew({ ...key(id), ...upload, state: 'pending', ttl: ttlIn(urlSeconds + UPLOAD_KEPT_SECONDS) });
}

/** Claims a live pending upload of `userId` for finalising; undefined when unknown, expired, someone else's or already claimed. */
export async function claimPendingUpload(id: string, userId: string): Promise<PendingUpload | undefined> {
  const condition = allOf(presentAndLive(), {
    ConditionExpression: 'userId = :u AND #state = :pending',
    ExpressionAttributeNames: { '#state': 'state' },
    ExpressionAttributeValues: { ':u': userId, ':pending': 'pending' },
  });
  try {
    const out = await db.send(
      new UpdateCommand({
        TableName: tableName,
        Key: key(id),
        UpdateExpression: 'SET #state = :finalizing',
        ...withCondition(condition, { values: { ':finalizing': 'finalizing' } }),
        ReturnValues: 'ALL_NEW',
      }),
    );
    return out.Attributes ? pendingUploadDecoder.decode(out.Attributes) : undefined;
  } catch (e) {
    if (isConditionalFailure(e)) return undefined;
    throw e;
  }
}

export const deletePendingUpload = (id: string): Promise<void> => deleteItem(key(id));
