import { createHash } from 'node:crypto';
import * as z from 'zod';
import { closeJournal, openJournal } from '#lib/data/upload-journal.ts';
import { errors } from '#lib/errors.ts';
import { logger } from '#lib/log.ts';
import { recordGroth16 } from '#lib/proofs/history.ts';
import { newFileRecord, type FileRecord } from './files.ts';
import { MAX_FILE_BYTES } from './limits.ts';
import { commitRecord, getPin, PinBusy, releasePin, removeRecord } from './pins.ts';
import { pinning, type Added } from './pinning.ts';
import type { AddMeta } from './pinning-port.ts';
import { commitmentSchema, parseJsonField, PASSWORD_CIRCUIT } from './proof.ts';

/**
 * The pipeline every upload runs once its proof holds (uploads.ts: the multipart body, a
 * presigned upload's staged object): stage the bytes into the pinning service under the upload's
 * journal, then settle (checksum, the one write that makes the file visible) or abandon them.
 * And the upload's text fields, which both read.
 */
const base64 = z
  .string()
  .max(4096)
  .regex(/^[A-Za-z0-9+/_-]*={0,2}$/, 'base64');
const checksumSchema = z
  .string()
  .regex(/^(sha256:)?[0-9a-fA-F]{64}$/, 'SHA-256 hex, optionally prefixed with sha256:')
  .transform((s) => s.replace(/^sha256:/, '').toLowerCase());

/** The text parts of an upload, both variants. */
export const fieldsSchema = z.object({
  proof: z.string().optional(),
  publicSignals: z.string().optional(),
  commitment: commitmentSchema.optional(),
  checksum: checksumSchema.optional(),
  encryptedData: z.string().optional(),
  iv: base64.optional(),
  salt: base64.optional(),
  filename: z.string().max(255).optional(),
  uploadId: z.uuid().optional(),
});
export type Fields = z.infer<typeof fieldsSchema>;

export const cleanName = (name: string | undefined) =>
  (name ?? '')
    .replace(/[\u0000-\u001f\u007f]/g, '')
    .replace(/^.*[\\/]/, '')
    .slice(0, 255) || 'file';

/** Counts and hashes the bytes on their way into the pinning service; more than 100 MB aborts. */
function metered(source: AsyncIterable<Uint8Array>) {
  const hash = createHash('sha256');
  const state = { size: 0, checksum: '' };
  async function* tap() {
    for await (const chunk of source) {
      state.size += chunk.length;
      if (state.size > MAX_FILE_BYTES) throw errors.fileTooLarge();
      hash.update(chunk);
      yield chunk;
    }
    state.checksum = hash.digest('hex');
  }
  return { stream: tap(), state };
}

/** An import written to the store but not yet visible (no record): `settle` or `abandon` it. */
export interface Staged {
  adapter: Awaited<ReturnType<typeof pinning>>;
  added: Added;
  state: { size: number; checksum: string };
  uploadId: string;
}

/**
 * The first half of the pipeline both paths share once the proof holds: the upload's journal
 * (lib/data/upload-journal.ts) is opened before the first block and stays until the upload is
 * settled — a crash leaves it, and the sweeper (sweeper.ts) takes back the blocks of a journal
 * older than an hour — then the bytes stream into the pinning service while they are hashed.
 */
export async function stage(source: AsyncIterable<Uint8Array>, name: string, uploadId: string, staged?: AddMeta['staged']): Promise<Staged> {
  const adapter = await pinning();
  const { stream, state } = metered(source);
  await openJournal(uploadId);
  try {
    return { adapter, added: await adapter.add(stream, { name, uploadId, staged }), state, uploadId };
  } catch (e) {
    // add() has dropped what it wrote.
    await closeJournal(uploadId).catch(() => undefined);
    throw e;
  }
}

/** Drops a staged import that will not be committed (its journal stays if the cleanup fails). */
export async function abandon({ adapter, added, uploadId }: Staged): Promise<void> {
  const existing = await getPin(added.cid).catch(() => undefined);
  try {
    await adapter.discard(added, existing?.state === 'pinned' ? existing.ref : undefined);
  } catch (err) {
    logger.error('upload cleanup failed', { cid: added.cid, error: err as Error });
    return;
  }
  await closeJournal(uploadId).catch(() => undefined);
}

/**
 * The second half: compare the checksum, then write the record and its pin reference in one
 * transaction — the one write that makes the file visible, so a crash at any point leaves either
 * the whole file or nothing visible. Any failure removes what this upload stored that nothing
 * else uses; no record is written.
 */
export async function settle(
  userId: string,
  staged: Staged,
  meta: { filename: string; variant: 'A' | 'B'; fields: Fields; zkEnabled: boolean },
): Promise<{ record: FileRecord; added: Added }> {
  const { adapter, added, state, uploadId } = staged;
  let committed = false;
  let settled = true; // false when a cleanup failed: the journal then stays for the sweeper
  try {
    if (meta.fields.checksum && meta.fields.checksum !== state.checksum) {
      logger.warn('upload checksum mismatch', { userId, cid: added.cid });
      throw errors.checksumMismatch('checksum does not match the bytes received');
    }
    const record = newFileRecord({
      userId,
      cid: added.cid,
      filename: meta.filename,
      size: state.size,
      checksum: state.checksum,
      zkEnabled: meta.zkEnabled,
      commitment: meta.zkEnabled ? meta.fields.commitment : undefined,
      iv: meta.fields.iv,
      salt: meta.fields.salt,
      variant: meta.variant,
    });
    let result: Awaited<ReturnType<typeof commitRecord>>;
    try {
      result = await commitRecord(record, added, uploadId, adapter.name);
    } catch (e) {
      if (!(e instanceof PinBusy)) throw e;
      // An unpin of the same CID is in progress: finish it if it went stale, then try once more.
      await releasePin(added.cid);
      try {
        result = await commitRecord(record, added, uploadId, adapter.name);
      } catch (again) {
        if (again instanceof PinBusy) throw errors.conflict('the same content is being deleted; retry the upload');
        throw again;
      }
    }
    committed = true;
    if (meta.zkEnabled)
      await recordGroth16(userId, {
        type: 'storage',
        action: 'accepted',
        circuit: PASSWORD_CIRCUIT,
        proof: parseJsonField('proof', meta.fields.proof),
        publicSignals: parseJsonField('publicSignals', meta.fields.publicSignals),
        valid: true,
        links: { fileId: record.id, cid: added.cid },
      });
    if (result.created) {
      // A concurrent unpin of shared blocks may have removed some after we wrote them.
      if (!(await adapter.present(added.cid, result.pin.ref))) {
        settled = false;
        await removeRecord(record);
        settled = true;
        throw errors.conflict('content was removed by a concurrent delete; retry the upload');
      }
    } else {
      settled = false;
      await adapter.discard(added, result.pin.ref); // a duplicate of content already pinned
      settled = true;
    }
    return { record, added };
  } catch (e) {
    if (!committed) {
      const existing = await getPin(added.cid).catch(() => undefined);
      await adapter.discard(added, existing?.state === 'pinned' ? existing.ref : undefined).catch((err) => {
        settled = false;
        logger.error('upload cleanup failed', { cid: added.cid, error: err as Error });
      });
    }
    throw e;
  } finally {
    if (settled) await closeJournal(uploadId).catch(() => undefined);
  }
}

export async function ingest(
  userId: string,
  source: AsyncIterable<Uint8Array>,
  meta: { filename: string; variant: 'A' | 'B'; fields: Fields; zkEnabled: boolean; uploadId: string; staged?: AddMeta['staged'] },
): Promise<{ record: FileRecord; added: Added }> {
  return settle(userId, await stage(source, meta.filename, meta.uploadId, meta.staged), meta);
}
