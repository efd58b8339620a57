import { createHash } from 'node:crypto';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { clock } from '#lib/clock.ts';
import { queryPage } from './query-page.ts';
import { db, tableName } from './client.ts';
import { absentOrExpired, decoder, isConditionalFailure, readItem, transactWrite } from './items.ts';

/**
 * Share links. The table keeps only the token's SHA-256: a leaked table holds no live links.
 *
 *   SHARE#<sha256(token)> / SHARE          Share        (what a link resolves to)
 *   SHARELINKS#<userId>  / LINK#<linkId>   ShareLinkEntry (the owner's index, for listing and revoking)
 *
 * `linkId` is the creation time (9 base-36 digits, so the sort key orders links by age) followed
 * by 12 hex digits of the token's hash: enough to name the link, nothing that opens it. Both items
 * are written in one transaction and share the TTL: `expiresAt` plus a week, so that an expired
 * link answers 410, not 404. Links created before the index existed have no entry and no
 * `linkId`: they resolve as before, are not listed and cannot be revoked; they lapse by 30 days.
 */
const EXPIRED_GRACE_SECONDS = 7 * 24 * 3600;

const shareSchema = z.object({
  fileId: z.string(),
  userId: z.string(),
  /** ISO 8601, as answered; `expiresAtMs` is the same instant for comparisons. */
  expiresAt: z.string(),
  expiresAtMs: z.number(),
  /** Absent on links created before the owner's index. */
  linkId: z.string().optional(),
  revoked: z.boolean().optional(),
});
export type Share = z.infer<typeof shareSchema>;
export const shareDecoder = decoder('share link', shareSchema);

const shareLinkEntrySchema = z.object({
  linkId: z.string(),
  fileId: z.string(),
  createdAt: z.string(),
  expiresAt: z.string(),
  expiresAtMs: z.number(),
  accessCount: z.number().int(),
  revoked: z.boolean(),
  /** The share item's key, so that revoking reaches it; the hash of the token, never the token. */
  tokenHash: z.string(),
});
export type ShareLinkEntry = z.infer<typeof shareLinkEntrySchema>;
const shareLinkEntryDecoder = decoder('share link entry', shareLinkEntrySchema);

const tokenHash = (token: string) => createHash('sha256').update(token).digest('hex');
const shareKey = (hash: string) => ({ pk: `SHARE#${hash}`, sk: 'SHARE' });
const ownerPartition = (userId: string) => `SHARELINKS#${userId}`;
const entryKey = (userId: string, linkId: string) => ({ pk: ownerPartition(userId), sk: `LINK#${linkId}` });

export const LINK_ID_PATTERN = /^[0-9a-z]{9}[0-9a-f]{12}$/;

/** Stores the link and its owner's index entry in one transaction; answers the link's id. */
export async function putShare(token: string, share: Omit<Share, 'linkId' | 'revoked'>): Promise<string> {
  const hash = tokenHash(token);
  const nowMs = clock.nowMs();
  const linkId = `${nowMs.toString(36).padStart(9, '0')}${hash.slice(0, 12)}`;
  const ttl = Math.ceil(share.expiresAtMs / 1000) + EXPIRED_GRACE_SECONDS;
  const entry: ShareLinkEntry = {
    linkId,
    fileId: share.fileId,
    createdAt: new Date(nowMs).toISOString(),
    expiresAt: share.expiresAt,
    expiresAtMs: share.expiresAtMs,
    accessCount: 0,
    revoked: false,
    tokenHash: hash,
  };
  const failed = await transactWrite([
    { Put: { TableName: tableName, Item: { ...shareKey(hash), ...share, linkId, revoked: false, ttl }, ...absentOrExpired() } },
    { Put: { TableName: tableName, Item: { ...entryKey(share.userId, linkId), ...entry, ttl }, ...absentOrExpired() } },
  ]);
  // 256 random bits collide never; a failure here is a bug, not a user's error.
  if (failed >= 0) throw new Error('share link key already taken');
  return linkId;
}

/** The link for `token`, revoked or not (its reader says which); undefined when unknown or past its TTL. */
export function readShare(token: string): Promise<Share | undefined> {
  return readItem(shareKey(tokenHash(token)), shareDecoder);
}

/** Counts one access on the owner's index entry (links without one are not counted). */
export async function countShareAccess(share: Share): Promise<void> {
  if (!share.linkId) return;
  try {
    await db.send(
      new UpdateCommand({
        TableName: tableName,
        Key: entryKey(share.userId, share.linkId),
        UpdateExpression: 'ADD accessCount :one',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':one': 1 },
      }),
    );
  } catch (e) {
    if (!isConditionalFailure(e)) throw e;
  }
}

/** The owner's links, newest first, a page at a time (expired ones drop out with their TTL). */
export async function pageShareLinks(userId: string, limit: number, cursor?: string) {
  const page = await queryPage({ pk: ownerPartition(userId), newestFirst: true, limit, cursor });
  return { links: page.items.map((i) => shareLinkEntryDecoder.decode(i)), nextCursor: page.nextCursor };
}

export const getShareLink = (userId: string, linkId: string): Promise<ShareLinkEntry | undefined> => readItem(entryKey(userId, linkId), shareLinkEntryDecoder);

/** Marks the link and its entry revoked, in one transaction; false when the owner has no such link. */
export async function revokeShareLink(userId: string, linkId: string): Promise<boolean> {
  const entry = await getShareLink(userId, linkId);
  if (!entry) return false;
  const revokedAt = clock.now().toISOString();
  const failed = await transactWrite([
    {
      Update: {
        TableName: tableName,
        Key: entryKey(userId, linkId),
        UpdateExpression: 'SET revoked = :true, revokedAt = :at',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':true': true, ':at': revokedAt },
      },
    },
    {
      Update: {
        TableName: tableName,
        Key: shareKey(entry.tokenHash),
        UpdateExpression: 'SET revoked = :true',
        ConditionExpression: 'attribute_exists(pk) AND userId = :owner',
        ExpressionAttributeValues: { ':true': true, ':owner': userId },
      },
    },
  ]);
  return failed < 0;
}
