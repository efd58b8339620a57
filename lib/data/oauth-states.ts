import { createHash } from 'node:crypto';
import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { db, tableName } from './client.ts';
import { decoder, isConditionalFailure, presentAndLive, putNew, ttlIn } from './items.ts';

/**
 * Pending OAuth authorizations, one per `state`, usable once:
 *
 *   OAUTHSTATE#<sha256(state)> / STATE   PendingAuth
 *
 * TTL: 10 minutes from the start of the login. The callback takes the item with a conditional
 * delete, so a replayed or concurrent callback with the same state finds nothing.
 */
export const STATE_TTL_SECONDS = 10 * 60;

const pendingAuthSchema = z.object({
  /** A provider id (lib/auth/oauth/providers.ts checks it against its list). */
  provider: z.string(),
  codeVerifier: z.string(),
  /** OpenID providers only: must come back in the ID token. */
  nonce: z.string().optional(),
  redirect: z.string(),
  mode: z.enum(['login', 'link']),
  /** link mode: the signed-in user the new provider is bound to. */
  userId: z.string().optional(),
  /** A loopback login (RFC 8252): the app's S256 code challenge; the callback hands off a code instead of a cookie. */
  handoffChallenge: z.string().optional(),
  createdAt: z.number(),
});
export type PendingAuthItem = z.infer<typeof pendingAuthSchema>;
export const pendingAuthDecoder = decoder('pending OAuth authorization', pendingAuthSchema);

const key = (state: string) => ({ pk: `OAUTHSTATE#${createHash('sha256').update(state).digest('hex')}`, sk: 'STATE' });

export async function savePendingAuth(state: string, pending: PendingAuthItem): Promise<void> {
  await putNew({ ...key(state), ...pending, ttl: ttlIn(STATE_TTL_SECONDS) });
}

/**
 * The pending authorization of `state`, removed atomically; null when unknown, expired or already
 * taken. `nativeLinkOnly`: only a native app's link (no browser cookie binds it), so a callback URL
 * carried to another browser cannot spend a browser-bound login.
 */
export async function takePendingAuth(state: string, nativeLinkOnly = false): Promise<PendingAuthItem | null> {
  const live = presentAndLive();
  const condition = nativeLinkOnly
    ? {
        ConditionExpression: `${live.ConditionExpression} AND #mode = :link AND attribute_exists(handoffChallenge)`,
        ExpressionAttributeNames: { ...live.ExpressionAttributeNames, '#mode': 'mode' },
        ExpressionAttributeValues: { ...live.ExpressionAttributeValues, ':link': 'link' },
      }
    : live;
  try {
    const out = await db.send(new DeleteCommand({ TableName: tableName, Key: key(state), ...condition, ReturnValues: 'ALL_OLD' }));
    return out.Attributes ? pendingAuthDecoder.decode(out.Attributes) : null;
  } catch (e) {
    if (isConditionalFailure(e)) return null;
    throw e;
  }
}
