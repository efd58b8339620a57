import { randomUUID } from 'node:crypto';
import { clock } from '#lib/clock.ts';
import { getItem, queryPartition } from '#lib/data/items.ts';
import { errors } from '#lib/errors.ts';

/**
 * File records: one per upload, whichever variant made it. Key `FILE#<id>`; the owner's files
 * are the gsi1 partition `FILES#<userId>`, sorted by creation time (newest first on list).
 * `size` and `checksum` are those of the stored bytes (the client's ciphertext).
 */
export interface FileRecord {
  id: string;
  userId: string;
  cid: string;
  filename: string;
  size: number;
  /** SHA-256 of the stored bytes, lower-case hex. */
  checksum: string;
  createdAt: string;
  /** Guarded by a proof of the password behind `commitment`. */
  zkEnabled: boolean;
  commitment?: string;
  /** Kept for the owner's client (AES-GCM iv and PBKDF2 salt, base64). */
  iv?: string;
  salt?: string;
  /** The variant that uploaded it (informational: both variants serve every file). */
  variant: 'A' | 'B';
}

export const fileKey = (id: string) => ({ pk: `FILE#${id}`, sk: 'FILE' });
export const ownerIndex = (r: Pick<FileRecord, 'userId' | 'createdAt' | 'id'>) => ({
  gsi1pk: `FILES#${r.userId}`,
  gsi1sk: `${r.createdAt}#${r.id}`,
});

export function newFileRecord(fields: Omit<FileRecord, 'id' | 'createdAt'>): FileRecord {
  return { ...fields, id: randomUUID(), createdAt: clock.now().toISOString() };
}

const strip = ({ pk: _pk, sk: _sk, gsi1pk: _g1, gsi1sk: _g2, ttl: _ttl, ...rest }: Record<string, unknown>) => rest as unknown as FileRecord;

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

export async function listFiles(userId: string): Promise<FileRecord[]> {
  const items = await queryPartition(`FILES#${userId}`, { index: 'gsi1', newestFirst: true });
  return items.map(strip);
}

/** The caller's file by id: unknown → 404 CID_NOT_FOUND, someone else's → 403. */
export async function ownedFile(userId: string, id: string): Promise<FileRecord> {
  const item = id.length <= 64 ? await getItem(fileKey(id)) : undefined;
  if (!item) throw errors.cidNotFound();
  const r = strip(item);
  if (r.userId !== userId) throw errors.forbidden('this file belongs to another user');
  return r;
}

/**
 * The caller's newest file with this CID. A CID the caller has no record of answers 404
 * CID_NOT_FOUND, whoever else stores it: a content address must not reveal other users' files.
 */
export async function ownedFileByCid(userId: string, cid: string): Promise<FileRecord> {
  const mine = (await listFiles(userId)).find((f) => f.cid === cid);
  if (!mine) throw errors.cidNotFound();
  return mine;
}

export async function fileById(id: string): Promise<FileRecord | undefined> {
  const item = id.length <= 64 ? await getItem(fileKey(id)) : undefined;
  return item ? strip(item) : undefined;
}
