import { createHash } from 'node:crypto';
import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { db, tableName } from './client.ts';
import { decoder, isConditionalFailure, presentAndLive, putNew, ttlIn } from './items.ts';

/**
 * Loopback-login handoffs (RFC 8252 native apps): a finished OAuth login waiting for the app that
 * started it, under the SHA-256 of a one-time code, bound to the app's code challenge:
 *
 *   OAUTHHANDOFF#<sha256(code)> / HANDOFF   Handoff
 *
 * TTL: HANDOFF_TTL_SECONDS. The exchange takes the item with a conditional delete, so a code
 * works once, whatever the verifier it comes with.
 */
export const HANDOFF_TTL_SECONDS = 60;

const handoffSchema = z.object({
  userId: z.string(),
  provider: z.string(),
  /** base64url(SHA-256(verifier)), from the app at the start of the login. */
  challenge: z.string(),
  email: z.string().optional(),
  name: z.string().optional(),
  avatar: z.string().optional(),
  /** `link`: a native app's link (lib/auth/oauth/handoff.ts), with the provider's subject to link; absent: a login. */
  purpose: z.enum(['login', 'link']).optional(),
  subject: z.string().optional(),
  createdAt: z.number(),
});
export type HandoffItem = z.infer<typeof handoffSchema>;
const handoffDecoder = decoder('OAuth handoff', handoffSchema);

const key = (code: string) => ({ pk: `OAUTHHANDOFF#${createHash('sha256').update(code).digest('hex')}`, sk: 'HANDOFF' });

export async function saveHandoff(code: string, handoff: HandoffItem): Promise<void> {
  await putNew({ ...key(code), ...handoff, ttl: ttlIn(HANDOFF_TTL_SECONDS) });
}

/** The handoff of `code`, removed atomically; null when unknown, expired or already taken. */
export async function takeHandoff(code: string): Promise<HandoffItem | null> {
  try {
    const out = await db.send(new DeleteCommand({ TableName: tableName, Key: key(code), ...presentAndLive(), ReturnValues: 'ALL_OLD' }));
    return out.Attributes ? handoffDecoder.decode(out.Attributes) : null;
  } catch (e) {
    if (isConditionalFailure(e)) return null;
    throw e;
  }
}
