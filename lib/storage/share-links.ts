import { randomBytes } from 'node:crypto';
import * as z from 'zod';
import { clock } from '#lib/clock.ts';
import { countShareAccess, readShare, LINK_ID_PATTERN, pageShareLinks, putShare, revokeShareLink, type ShareLinkEntry } from '#lib/data/shares.ts';
import { errors } from '#lib/errors.ts';
import { clientCursorPage } from '#lib/http/client-cursor.ts';
import { queryInteger } from '#lib/http/validation.ts';
import { storageConfig } from './config.ts';
import { fileById, ownedFile } from './files.ts';
import { livePin } from './pins.ts';

export const MIN_SHARE_SECONDS = 60;
export const MAX_SHARE_SECONDS = 30 * 24 * 3600;
/** The contract's two examples disagree on the unit (48 vs 86400): up to 720 means hours (30 days), above, seconds (test/unit/storage/share-links.test.ts). */
export const HOURS_UP_TO = 720;

const UNIT_SECONDS = { s: 1, m: 60, h: 3600, d: 86400 } as const;
const NUMBER_FORM = `a whole number (up to ${HOURS_UP_TO} is hours, more is seconds)`;
const UNIT_FORM = 'a string of up to 9 digits and one of s, m, h, d (e.g. "48h")';

export const shareInput = z.object({
  fileId: z.string().min(1).max(64),
  /** A number (the heuristic below) or a string with its unit: "600s", "10m", "48h", "7d". */
  expiresIn: z.union([z.number().int({ error: NUMBER_FORM }), z.string().regex(/^\d{1,9}[smhd]$/, UNIT_FORM)], {
    error: (issue) => (issue.input === undefined ? 'required' : `${NUMBER_FORM} or ${UNIT_FORM}`),
  }),
});

/**
 * `expiresIn` in seconds: with a unit, exactly that; a bare number up to 720 is hours, above
 * that seconds. Outside [1 minute, 30 days] → 400.
 */
export function shareSeconds(expiresIn: number | string): number {
  let seconds: number;
  if (typeof expiresIn === 'string') {
    const m = /^(\d{1,9})([smhd])$/.exec(expiresIn);
    if (!m) throw errors.invalidInput(`expiresIn: ${UNIT_FORM}`);
    seconds = Number(m[1]) * UNIT_SECONDS[m[2] as keyof typeof UNIT_SECONDS];
  } else {
    if (!Number.isInteger(expiresIn)) throw errors.invalidInput('expiresIn: must be a whole number');
    seconds = expiresIn <= HOURS_UP_TO ? expiresIn * 3600 : expiresIn;
  }
  if (seconds < MIN_SHARE_SECONDS || seconds > MAX_SHARE_SECONDS) {
    throw errors.invalidInput(
      `expiresIn: with a unit ("600s", "10m", "48h", "7d") or a bare number (up to ${HOURS_UP_TO} is hours, more is seconds); the result must lie between ${MIN_SHARE_SECONDS} s and 30 days`,
    );
  }
  return seconds;
}

export async function createShare(userId: string, input: z.infer<typeof shareInput>) {
  const seconds = shareSeconds(input.expiresIn);
  const file = await ownedFile(userId, input.fileId);
  await livePin(file.cid);
  const shareToken = randomBytes(32).toString('base64url'); // 256 bits
  const expiresAtMs = clock.nowMs() + seconds * 1000;
  const expiresAt = new Date(expiresAtMs).toISOString();
  await putShare(shareToken, { fileId: file.id, userId, expiresAt, expiresAtMs });
  return { shareToken, shareUrl: `${storageConfig.SHARE_PAGE_URL}/${shareToken}`, expiresAt };
}

/**
 * The file behind a live link: unknown → 404, revoked → 410 SHARE_REVOKED, past `expiresAt` → 410
 * SHARE_EXPIRED (a recipient is told why the link stopped opening), its file deleted → 404
 * CID_NOT_FOUND.
 */
async function sharedFile(token: string) {
  const share = /^[A-Za-z0-9_-]{43}$/.test(token) ? await readShare(token) : undefined;
  if (!share) throw errors.notFound('unknown share link');
  if (share.revoked) throw errors.shareRevoked();
  if (clock.nowMs() >= share.expiresAtMs) throw errors.shareExpired();
  const file = await fileById(share.fileId);
  if (!file || file.userId !== share.userId) throw errors.cidNotFound();
  return { share, file };
}

/**
 * What a share link shows: the file's name and size, and the iv and salt a recipient's client
 * needs to prove the file password and decrypt (never the password's commitment's secret: the
 * salt alone proves nothing). Each read counts as an access.
 */
export async function resolveShare(token: string) {
  const { share, file } = await sharedFile(token);
  await livePin(file.cid);
  await countShareAccess(share);
  return {
    file: { cid: file.cid, filename: file.filename, size: file.size, ...(file.iv ? { iv: file.iv } : {}), ...(file.salt ? { salt: file.salt } : {}) },
    expiresAt: share.expiresAt,
  };
}

/** The shared file for a download (lib/storage/downloads.ts checks the proof against its commitment). */
export const sharedFileRecord = async (token: string) => (await sharedFile(token)).file;

// ---- the owner's links: list and revoke ----------------------------------------------------

export const shareLinksQuery = z.object({
  limit: queryInteger(1, 100).default(20),
  cursor: z.string().min(1).max(512).optional(),
});
export const shareLinkParams = z.object({ id: z.string().regex(LINK_ID_PATTERN, 'a share link id from GET /api/storage/shares') });

/** A link as its owner sees it: never the token (the table does not have it), only the link's id. */
export const shareLinkView = z.object({
  id: z.string(),
  fileId: z.string(),
  filename: z.string().nullable(),
  createdAt: z.iso.datetime(),
  expiresAt: z.iso.datetime(),
  status: z.enum(['active', 'expired', 'revoked']),
  accessCount: z.number().int(),
});
export const shareLinksAnswer = z.object({ shares: z.array(shareLinkView), nextCursor: z.string().nullable() });
export const revokeShareAnswer = z.object({ id: z.string(), revoked: z.literal(true) });

function ownerView(link: ShareLinkEntry, filename: string | null): z.infer<typeof shareLinkView> {
  const status = link.revoked ? 'revoked' : clock.nowMs() >= link.expiresAtMs ? 'expired' : 'active';
  return { id: link.linkId, fileId: link.fileId, filename, createdAt: link.createdAt, expiresAt: link.expiresAt, status, accessCount: link.accessCount };
}

/**
 * The caller's share links, newest first, a page at a time, each with its file's name (null when
 * the file has since been deleted). Links created before the per-user index are not listed.
 */
export async function listMine(userId: string, q: z.infer<typeof shareLinksQuery> = { limit: 20 }) {
  const page = await clientCursorPage(pageShareLinks(userId, q.limit, q.cursor));
  const files = await Promise.all(page.links.map((l) => fileById(l.fileId)));
  const shares = page.links.map((l, i) => {
    const f = files[i];
    return ownerView(l, f && f.userId === userId ? f.filename : null);
  });
  return { shares, nextCursor: page.nextCursor };
}

/** Revokes one of the caller's links: its token stops resolving at once. Another user's id → 404 as an unknown one. */
export async function revokeMine(userId: string, id: string) {
  if (!(await revokeShareLink(userId, id))) throw errors.notFound('no such share link');
  return { id, revoked: true as const };
}
