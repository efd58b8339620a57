import { randomUUID } from 'node:crypto';
import { clock } from '#lib/clock.ts';
import * as z from 'zod';
import { getFile, newestFileWithCid, pageFilesOf, type FileRecord } from '#lib/data/files.ts';
import { errors } from '#lib/errors.ts';
import { clientCursorPage } from '#lib/http/client-cursor.ts';
import { queryInteger } from '#lib/http/validation.ts';

/**
 * The caller's files (records: lib/data/files.ts), in the two variants' shapes. `size` and
 * `checksum` are those of the stored bytes (the client's ciphertext).
 */
export type { FileRecord };

export function newFileRecord(fields: Omit<FileRecord, 'id' | 'createdAt'>): FileRecord {
  return { ...fields, id: randomUUID(), createdAt: clock.now().toISOString() };
}

/** Variant A's File record. */
export const shapeA = (r: FileRecord) => ({
  id: r.id,
  cid: r.cid,
  filename: r.filename,
  size: r.size,
  createdAt: r.createdAt,
  checksum: `sha256:${r.checksum}`,
});

/** Variant B's File record (plus the iv and salt the owner's client needs to decrypt). */
export const shapeB = (r: FileRecord) => ({
  id: r.id,
  cid: r.cid,
  originalName: r.filename,
  originalSize: r.size,
  zkEnabled: r.zkEnabled,
  createdAt: r.createdAt,
  ...(r.iv ? { iv: r.iv } : {}),
  ...(r.salt ? { salt: r.salt } : {}),
});

/**
 * Both lists' query: pages of up to 1000 files (the default), newest first. A page bounds what one
 * call reads and answers (a Lambda answer is at most 6 MB, some 12,000 records), whatever the
 * owner's file count; `cursor` is the previous page's `nextCursor`.
 */
export const fileListQuery = z.object({
  limit: queryInteger(1, 1000).default(1000),
  cursor: z.string().min(1).max(1024).optional(),
});

/** A page of the owner's files, newest first, with the cursor of the next (null at the end). */
export const pageFiles = (userId: string, q: z.infer<typeof fileListQuery>): Promise<{ files: FileRecord[]; nextCursor: string | null }> =>
  clientCursorPage(pageFilesOf(userId, q.limit, q.cursor));

/**
 * The caller's file by id. Unknown and someone else's answer the same 404 CID_NOT_FOUND (same
 * status, code and message): an answer that differed would tell a caller that an id exists.
 */
export async function ownedFile(userId: string, id: string): Promise<FileRecord> {
  const r = await fileById(id);
  if (!r || r.userId !== userId) throw errors.cidNotFound();
  return r;
}

/**
 * The caller's newest file with this CID. A CID the caller has no record of answers 404
 * CID_NOT_FOUND, whoever else stores it: a content address must not reveal other users' files.
 * Constant reads whatever the caller's file count (the CID lookup items of lib/data/files.ts).
 */
export async function ownedFileByCid(userId: string, cid: string): Promise<FileRecord> {
  const mine = await newestFileWithCid(userId, cid);
  if (!mine) throw errors.cidNotFound();
  return mine;
}

export async function fileById(id: string): Promise<FileRecord | undefined> {
  return id.length <= 64 ? getFile(id) : undefined;
}
