import { randomUUID } from 'node:crypto';
import { clock } from '#lib/clock.ts';
import { getFile, listFilesOf, newestFileWithCid, type FileRecord } from '#lib/data/files.ts';
import { errors } from '#lib/errors.ts';

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

/** The owner's files, newest first. */
export const listFiles = (userId: string): Promise<FileRecord[]> => listFilesOf(userId);

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
