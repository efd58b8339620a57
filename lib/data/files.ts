import * as z from 'zod';
import { decoder, listPartition, readItem } from './items.ts';

/**
 * File records: one per upload, whichever variant made it (no TTL: a file lives until deleted).
 *
 *   FILE#<id> / FILE    FileRecord, with gsi1 = FILES#<userId> / <createdAt>#<id>
 *
 * The owner's files are the gsi1 partition, sorted by creation time. Records are written and
 * removed together with their pin reference (pins.ts).
 */
const fileRecordSchema = z.object({
  id: z.string(),
  userId: z.string(),
  cid: z.string(),
  filename: z.string(),
  /** Size and SHA-256 (lower-case hex) of the stored bytes (the client's ciphertext). */
  size: z.number(),
  checksum: z.string(),
  createdAt: z.string(),
  /** Guarded by a proof of the password behind `commitment`. */
  zkEnabled: z.boolean(),
  commitment: z.string().optional(),
  /** Kept for the owner's client (AES-GCM iv and PBKDF2 salt, base64). */
  iv: z.string().optional(),
  salt: z.string().optional(),
  /** The variant that uploaded it (informational: both variants serve every file). */
  variant: z.enum(['A', 'B']),
});
export type FileRecord = z.infer<typeof fileRecordSchema>;
export const fileRecordDecoder = decoder('file record', fileRecordSchema);

export const fileKey = (id: string) => ({ pk: `FILE#${id}`, sk: 'FILE' });
const ownerPartition = (userId: string) => `FILES#${userId}`;
const ownerIndex = (r: Pick<FileRecord, 'userId' | 'createdAt' | 'id'>) => ({ gsi1pk: ownerPartition(r.userId), gsi1sk: `${r.createdAt}#${r.id}` });

/** The item of a record, with its owner index. */
export const fileItem = (r: FileRecord) => ({ ...fileKey(r.id), ...ownerIndex(r), ...r });

export const getFile = (id: string): Promise<FileRecord | undefined> => readItem(fileKey(id), fileRecordDecoder);

/** The owner's files, newest first. */
export const listFilesOf = (userId: string): Promise<FileRecord[]> =>
  listPartition(ownerPartition(userId), fileRecordDecoder, { index: 'gsi1', newestFirst: true });
