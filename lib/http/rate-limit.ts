import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { clock } from '#lib/clock.ts';
import { config } from '#lib/config.ts';
import { db, tableName } from '#lib/data/client.ts';

export const WINDOW_SECONDS = 60;

export interface RateLimitState {
  limit: number;
  remaining: number;
  /** Seconds until the window resets. */
  reset: number;
  exceeded: boolean;
}

/**
 * Fixed 60 s window per (group, client), counted atomically in DynamoDB with `ADD`, so every
 * Lambda instance sees the same count. The counter expires with its window (TTL).
 */
export async function hit(group: string, client: string, perMinute: number): Promise<RateLimitState> {
  const limit = Math.max(1, Math.floor(perMinute * config.RATE_LIMIT_MULTIPLIER));
  const now = clock.nowSeconds();
  const windowStart = now - (now % WINDOW_SECONDS);
  const reset = windowStart + WINDOW_SECONDS - now;
  const out = await db.send(
    new UpdateCommand({
      TableName: tableName,
      Key: { pk: `RATE#${group}#${client}`, sk: String(windowStart) },
      UpdateExpression: 'ADD #n :one SET #ttl = if_not_exists(#ttl, :ttl)',
      ExpressionAttributeNames: { '#n': 'count', '#ttl': 'ttl' },
      ExpressionAttributeValues: { ':one': 1, ':ttl': windowStart + 2 * WINDOW_SECONDS },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  const count = Number(out.Attributes?.count ?? 1);
  return { limit, remaining: Math.max(0, limit - count), reset, exceeded: count > limit };
}

export const rateLimitHeaders = (s: RateLimitState): Record<string, string> => ({
  'ratelimit-limit': String(s.limit),
  'ratelimit-remaining': String(s.remaining),
  'ratelimit-reset': String(s.reset),
});
