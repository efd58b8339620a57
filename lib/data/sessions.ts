import { createHash, randomBytes } from 'node:crypto';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { clock } from '#lib/clock.ts';
import { db, tableName } from './client.ts';
import { decoder, deleteItem, putNew, readItem } from './items.ts';

/**
 * Sessions: the cookie carries 256 random bits; DynamoDB keeps only their SHA-256, so a leaked
 * table does not leak live sessions. Two lifetimes: an idle one, pushed forward on use, and an
 * absolute one that nothing extends.
 *
 *   SESSION#<sha256(cookie)> / SESSION   Session
 *
 * TTL: the absolute expiry plus a grace period, so that an expired session can be told apart
 * from a missing one (SESSION_EXPIRED vs plain 401).
 */
export const SESSION_IDLE_SECONDS = 24 * 3600;
export const SESSION_ABSOLUTE_SECONDS = 7 * 24 * 3600;
const GRACE_SECONDS = 7 * 24 * 3600;
/** Idle expiry is written back at most this often, to keep reads cheap. */
const TOUCH_EVERY_SECONDS = 300;

/** What an OAuth login reports about the person (shown by `/api/zkauth/status`). */
const profileShape = {
  provider: z.string().optional(),
  email: z.string().optional(),
  name: z.string().optional(),
  avatar: z.string().optional(),
};
export type SessionProfile = { [K in keyof typeof profileShape]?: string };

const sessionSchema = z.object({
  hash: z.string(),
  userId: z.string(),
  /** How the session was made: 'password' or 'oauth:<provider>'. */
  method: z.string(),
  createdAt: z.number(),
  idleExpiresAt: z.number(),
  absoluteExpiresAt: z.number(),
  ...profileShape,
});
export type Session = z.infer<typeof sessionSchema>;
export const sessionDecoder = decoder('session', sessionSchema);

export type SessionLookup = { state: 'none' } | { state: 'expired'; session: Session } | { state: 'active'; session: Session };

const key = (hash: string) => ({ pk: `SESSION#${hash}`, sk: 'SESSION' });
const ttlOf = (s: Session) => s.absoluteExpiresAt + GRACE_SECONDS;
export const hashSessionId = (id: string): string => createHash('sha256').update(id).digest('hex');

export const sessionExpiresAt = (s: Session): number => Math.min(s.idleExpiresAt, s.absoluteExpiresAt);

export async function createSession(userId: string, method: string, profile: SessionProfile = {}) {
  const id = randomBytes(32).toString('base64url');
  const now = clock.nowSeconds();
  const session: Session = {
    ...profile,
    hash: hashSessionId(id),
    userId,
    method,
    createdAt: now,
    idleExpiresAt: now + SESSION_IDLE_SECONDS,
    absoluteExpiresAt: now + SESSION_ABSOLUTE_SECONDS,
  };
  await putNew({ ...key(session.hash), ...session, ttl: ttlOf(session) });
  return { id, session, maxAgeSeconds: SESSION_ABSOLUTE_SECONDS };
}

export async function loadSession(id: string | undefined): Promise<SessionLookup> {
  if (!id || id.length > 128) return { state: 'none' };
  const session = await readItem(key(hashSessionId(id)), sessionDecoder);
  if (!session) return { state: 'none' };
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

export async function destroySession(hash: string): Promise<void> {
  await deleteItem(key(hash));
}
