import { DeleteCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { createHash } from 'node:crypto';
import { clock } from '#lib/clock.ts';
import { db, tableName } from './client.ts';
import * as z from 'zod';
import { absentOrExpired, anyOf, decoder, isConditionalFailure, readItem } from './items.ts';

/**
 * Idempotency records: the first answer to a request made with an `Idempotency-Key`, kept for a
 * day so that a retry gets that answer back instead of doing the work again. A record is claimed
 * (`in_progress`, with a lock that outlives the function's timeout) before the work starts and
 * completed with the answer after it; a failed attempt releases it so that a retry may run.
 */
export const IDEMPOTENCY_TTL_SECONDS = 24 * 3600;
/** DynamoDB items hold 400 KB: larger answers are not kept (a replay then says so). */
const MAX_STORED_BODY = 300 * 1024;

export interface StoredResponse {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
  isBase64Encoded?: boolean;
}

export type Claim =
  | { kind: 'claimed' }
  | { kind: 'replay'; response: StoredResponse | null }
  | { kind: 'mismatch' }
  | { kind: 'in_progress'; retryAfter: number };

const storedResponseSchema = z.object({
  statusCode: z.number(),
  headers: z.record(z.string(), z.string()),
  body: z.string(),
  isBase64Encoded: z.boolean().optional().transform((b) => b === true),
});

const idempotencySchema = z.object({
  status: z.enum(['in_progress', 'completed']),
  fingerprint: z.string(),
  lockedUntil: z.number(),
  // An answer that cannot be read back is replayed as "not kept", not as a broken record.
  response: storedResponseSchema.nullable().catch(null),
  ttl: z.number(),
});
export const idempotencyDecoder = decoder('idempotency record', idempotencySchema);

/** The scope (client and route) and the key are hashed: a key is the client's text, never a table key as given. */
const keyOf = (scope: string, key: string) => ({
  pk: `IDEMPOTENCY#${createHash('sha256').update(scope).update('\n').update(key).digest('base64url')}`,
  sk: 'IDEMPOTENCY',
});

export async function claim(scope: string, key: string, fingerprint: string, lockSeconds: number): Promise<Claim> {
  const now = clock.nowSeconds();
  try {
    await db.send(
      new PutCommand({
        TableName: tableName,
        Item: { ...keyOf(scope, key), status: 'in_progress', fingerprint, lockedUntil: now + lockSeconds, response: null, ttl: now + IDEMPOTENCY_TTL_SECONDS },
        // Absent, expired, or an attempt that died holding the lock.
        ...anyOf(absentOrExpired(now), {
          ConditionExpression: '#status = :progress AND lockedUntil <= :now',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':now': now, ':progress': 'in_progress' },
        }),
      }),
    );
    return { kind: 'claimed' };
  } catch (e) {
    if (!isConditionalFailure(e)) throw e;
  }
  const record = await readItem(keyOf(scope, key), idempotencyDecoder);
  // Gone between the two calls (expired): the caller may simply try again.
  if (!record) return { kind: 'in_progress', retryAfter: 1 };
  if (record.fingerprint !== fingerprint) return { kind: 'mismatch' };
  if (record.status === 'in_progress') return { kind: 'in_progress', retryAfter: Math.max(1, record.lockedUntil - now) };
  return { kind: 'replay', response: record.response };
}

export async function complete(scope: string, key: string, fingerprint: string, response: StoredResponse): Promise<void> {
  const kept = response.body.length <= MAX_STORED_BODY ? response : null;
  await db.send(
    new UpdateCommand({
      TableName: tableName,
      Key: keyOf(scope, key),
      UpdateExpression: 'SET #status = :done, #response = :response, #ttl = :ttl',
      ConditionExpression: '#status = :progress AND fingerprint = :fp',
      ExpressionAttributeNames: { '#status': 'status', '#response': 'response', '#ttl': 'ttl' },
      ExpressionAttributeValues: { ':done': 'completed', ':progress': 'in_progress', ':fp': fingerprint, ':response': kept, ':ttl': clock.nowSeconds() + IDEMPOTENCY_TTL_SECONDS },
    }),
  );
}

/** After a failed attempt: the key may be used again (only our own claim is removed). */
export async function release(scope: string, key: string, fingerprint: string): Promise<void> {
  try {
    await db.send(
      new DeleteCommand({
        TableName: tableName,
        Key: keyOf(scope, key),
        ConditionExpression: '#status = :progress AND fingerprint = :fp',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':progress': 'in_progress', ':fp': fingerprint },
      }),
    );
  } catch (e) {
    if (!isConditionalFailure(e)) throw e;
  }
}

/** The record's table key (hashed), as a value move keeps it to settle the record later (lib/moves/journal.ts). */
export const recordKeyOf = (scope: string, key: string): string => keyOf(scope, key).pk;

/**
 * Binds an attempt's claim to the transaction it is about to send: the claim now lasts `seconds`
 * (past any crash of the attempt) and names the transaction, until the journal settles it
 * (`settleBound`). False when the claim is no longer this attempt's.
 */
export async function bindToTransaction(scope: string, key: string, fingerprint: string, txHash: string, seconds: number, landed: StoredResponse): Promise<boolean> {
  try {
    await db.send(
      new UpdateCommand({
        TableName: tableName,
        Key: keyOf(scope, key),
        UpdateExpression: 'SET txHash = :tx, lockedUntil = :until, ifLanded = :landed',
        ConditionExpression: '#status = :progress AND fingerprint = :fp',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':tx': txHash, ':until': clock.nowSeconds() + seconds, ':progress': 'in_progress', ':fp': fingerprint, ':landed': landed },
      }),
    );
    return true;
  } catch (e) {
    if (isConditionalFailure(e)) return false;
    throw e;
  }
}

/**
 * The bound transaction has settled. Landed: a claim its attempt never completed (it died) is
 * completed with the answer kept at binding (202 `submitted` naming the transaction), so a retry gets
 * that, never a second transaction. Failed or expired: nothing moved, and the key is freed,
 * whether its attempt died or answered 202, so that a retry may do the work.
 */
export async function settleBound(pk: string, txHash: string, outcome: 'landed' | 'failed' | 'expired'): Promise<void> {
  const Key = { pk, sk: 'IDEMPOTENCY' };
  try {
    if (outcome === 'landed') {
      await db.send(
        new UpdateCommand({
          TableName: tableName,
          Key,
          UpdateExpression: 'SET #status = :done, #response = ifLanded',
          ConditionExpression: '#status = :progress AND txHash = :tx',
          ExpressionAttributeNames: { '#status': 'status', '#response': 'response' },
          ExpressionAttributeValues: { ':done': 'completed', ':progress': 'in_progress', ':tx': txHash },
        }),
      );
    } else {
      await db.send(new DeleteCommand({ TableName: tableName, Key, ConditionExpression: 'txHash = :tx', ExpressionAttributeValues: { ':tx': txHash } }));
    }
  } catch (e) {
    if (!isConditionalFailure(e)) throw e;
  }
}
