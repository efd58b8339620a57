import { createHash, randomBytes } from 'node:crypto';
import { clock } from '#lib/clock.ts';
import { deleteItem, getItem, putNew } from './items.ts';
import { db, tableName } from './client.ts';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';

/**
 * Sessions: the cookie carries 256 random bits; DynamoDB keeps only their SHA-256, so a leaked
 * table does not leak live sessions. Two lifetimes: an idle one, pushed forward on use, and an
 * absolute one that nothing extends. The record outlives its expiry by a grace period so that an
 * expired session can be told apart from a missing one (SESSION_EXPIRED vs plain 401).
 */
export const SESSION_IDLE_SECONDS = 24 * 3600;
export const SESSION_ABSOLUTE_SECONDS = 7 * 24 * 3600;
const GRACE_SECONDS = 7 * 24 * 3600;
/** Idle expiry is written back at most this often, to keep reads cheap. */
const TOUCH_EVERY_SECONDS = 300;

export interface Session {
  hash: string;
  userId: string;
  /** How the session was made: 'password' or 'oauth:<provider>'. */
  method: string;
  createdAt: number;
  idleExpiresAt: number;
  absoluteExpiresAt: number;
  [extra: string]: unknown;
}

export type SessionLookup =
  | { state: 'none' }
  | { state: 'expired'; session: Session }
  | { state: 'active'; session: Session };

const key = (hash: string) => ({ pk: `SESSION#${hash}`, sk: 'SESSION' });
export const hashSessionId = (id: string): string => createHash('sha256').update(id).digest('hex');

export const sessionExpiresAt = (s: Session): number => Math.min(s.idleExpiresAt, s.absoluteExpiresAt);

export async function createSession(userId: string, method: string, extra: Record<string, unknown> = {}) {
  const id = randomBytes(32).toString('base64url');
  const now = clock.nowSeconds();
  const session: Session = {
    ...extra,
    hash: hashSessionId(id),
    userId,
    method,
    createdAt: now,
    idleExpiresAt: now + SESSION_IDLE_SECONDS,
    absoluteExpiresAt: now + SESSION_ABSOLUTE_SECONDS,
  };
  await putNew({ ...key(session.hash), ...session, ttl: session.absoluteExpiresAt + GRACE_SECONDS });
  return { id, session, maxAgeSeconds: SESSION_ABSOLUTE_SECONDS };
}

export async function loadSession(id: string | undefined): Promise<SessionLookup> {
  if (!id || id.length > 128) return { state: 'none' };
  const item = await getItem(key(hashSessionId(id)));
  if (!item) return { state: 'none' };
  const session = item as unknown as Session;
  const now = clock.nowSeconds();
  if (sessionExpiresAt(session) <= now) return { state: 'expired', session };
  if (session.idleExpiresAt - SESSION_IDLE_SECONDS + TOUCH_EVERY_SECONDS <= now) {
    session.idleExpiresAt = now + SESSION_IDLE_SECONDS;
    await db.send(
      new UpdateCommand({
        TableName: tableName,
        Key: key(session.hash),
        UpdateExpression: 'SET idleExpiresAt = :t',
        ExpressionAttributeValues: { ':t': session.idleExpiresAt },
      }),
    );
  }
  return { state: 'active', session };
}

/** Merge fields into a live session (e.g. the OAuth profile or the STARK proof state). */
export async function updateSession(hash: string, fields: Record<string, unknown>): Promise<void> {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const sets = Object.entries(fields).map(([k, v], i) => {
    names[`#f${i}`] = k;
    values[`:v${i}`] = v;
    return `#f${i} = :v${i}`;
  });
  if (!sets.length) return;
  await db.send(
    new UpdateCommand({
      TableName: tableName,
      Key: key(hash),
      UpdateExpression: `SET ${sets.join(', ')}`,
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
      ConditionExpression: 'attribute_exists(pk)',
    }),
  );
}

export async function destroySession(hash: string): Promise<void> {
  await deleteItem(key(hash));
}
