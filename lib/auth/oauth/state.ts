import { createHash } from 'node:crypto';
import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { clock } from '#lib/clock.ts';
import { db, tableName } from '#lib/data/client.ts';
import { isConditionalFailure, putNew, ttlIn } from '#lib/data/items.ts';
import type { ProviderId } from './providers.ts';

/**
 * One pending authorization: what the callback needs (PKCE verifier, nonce, where to go, whose
 * account to link), kept in DynamoDB for 10 minutes under the SHA-256 of `state`, and usable
 * once: the callback takes it with a conditional delete, so a replayed or concurrent callback
 * with the same state finds nothing.
 */
export const STATE_TTL_SECONDS = 10 * 60;

export interface PendingAuth {
  provider: ProviderId;
  codeVerifier: string;
  /** OpenID providers only: must come back in the ID token. */
  nonce?: string;
  redirect: string;
  mode: 'login' | 'link';
  /** link mode: the signed-in user the new provider is bound to. */
  userId?: string;
  createdAt: number;
}

const key = (state: string) => ({ pk: `OAUTHSTATE#${createHash('sha256').update(state).digest('hex')}`, sk: 'STATE' });

export async function saveState(state: string, pending: PendingAuth): Promise<void> {
  await putNew({ ...key(state), ...pending, ttl: ttlIn(STATE_TTL_SECONDS) });
}

/** The pending authorization of `state`, removed atomically; null when unknown, expired or already used. */
export async function consumeState(state: string): Promise<PendingAuth | null> {
  if (!state || state.length > 256) return null;
  try {
    const out = await db.send(
      new DeleteCommand({
        TableName: tableName,
        Key: key(state),
        // An expired item may still be in the table (TTL deletes lazily): it counts as absent.
        ConditionExpression: 'attribute_exists(pk) AND #ttl > :now',
        ExpressionAttributeNames: { '#ttl': 'ttl' },
        ExpressionAttributeValues: { ':now': clock.nowSeconds() },
        ReturnValues: 'ALL_OLD',
      }),
    );
    const { pk: _pk, sk: _sk, ttl: _ttl, ...pending } = (out.Attributes ?? {}) as Record<string, unknown>;
    return out.Attributes ? (pending as unknown as PendingAuth) : null;
  } catch (e) {
    if (isConditionalFailure(e)) return null;
    throw e;
  }
}
