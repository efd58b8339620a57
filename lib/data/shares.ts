import { createHash } from 'node:crypto';
import * as z from 'zod';
import { decoder, putNew, readItem } from './items.ts';

/**
 * Share links. The table keeps only the token's SHA-256: a leaked table holds no live links.
 *
 *   SHARE#<sha256(token)> / SHARE   Share
 *
 * TTL: `expiresAt` plus a week, so that an expired link answers 410, not 404.
 */
const EXPIRED_GRACE_SECONDS = 7 * 24 * 3600;

const shareSchema = z.object({
  fileId: z.string(),
  userId: z.string(),
  /** ISO 8601, as answered; `expiresAtMs` is the same instant for comparisons. */
  expiresAt: z.string(),
  expiresAtMs: z.number(),
});
export type Share = z.infer<typeof shareSchema>;
export const shareDecoder = decoder('share link', shareSchema);

const key = (token: string) => ({ pk: `SHARE#${createHash('sha256').update(token).digest('hex')}`, sk: 'SHARE' });

export async function putShare(token: string, share: Share): Promise<void> {
  await putNew({ ...key(token), ...share, ttl: Math.ceil(share.expiresAtMs / 1000) + EXPIRED_GRACE_SECONDS });
}

export const getShare = (token: string): Promise<Share | undefined> => readItem(key(token), shareDecoder);
