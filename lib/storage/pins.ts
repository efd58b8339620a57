import { DeleteObjectCommand } from '@aws-sdk/client-s3';
import { claimUnpin, deleteFileWithPin, deleteUnpinnedPin, getPin, markAssembled, putFileWithPin, type Pin } from '#lib/data/pins.ts';
import type { FileRecord } from '#lib/data/files.ts';
import { errors } from '#lib/errors.ts';
import { logger } from '#lib/log.ts';
import { pinning, type Added } from './pinning.ts';
import { dropReplicaOwner } from './replicas.ts';
import { bucket, s3 } from './s3.ts';

/**
 * Pins and their reference counts (records: lib/data/pins.ts). A file record and its reference
 * are written in one transaction, and removed in one; the content is unpinned only by whoever
 * moves `refs` to 0 *and* flips the pin to `unpinning` in a conditional write, so two deletes of
 * the last two records cannot both unpin, and an upload cannot join a pin that is being unpinned
 * (it waits or fails with 409 instead).
 */
export { getPin, markAssembled, type Pin };

export const assembledKey = (cid: string) => `files/${cid}`;
/** The trustless gateway's assembled CAR of a large file (trustless-gateway.ts). */
export const carKey = (cid: string) => `cars/${cid}`;
/** An unpin that has not finished in this long is taken over (its Lambda died). */
const STALE_UNPIN_SECONDS = 60;

/** A pinned CID, or 404 CID_NOT_FOUND (never pinned, unpinned, or being unpinned). */
export async function livePin(cid: string): Promise<Pin> {
  const pin = await getPin(cid);
  if (!pin || pin.state !== 'pinned' || pin.refs < 1) throw errors.cidNotFound();
  return pin;
}

export class PinBusy extends Error {}

/** Writes the file record and its pin reference together. Returns whether this upload created the pin. */
export async function commitRecord(record: FileRecord, added: Added, uploadId: string, adapter: string): Promise<{ created: boolean; pin: Pin }> {
  if (!(await putFileWithPin(record, added, uploadId, adapter))) throw new PinBusy('the same content is being unpinned');
  const pin = await getPin(added.cid);
  if (!pin) throw new Error(`pin ${added.cid} vanished right after it was written`);
  return { created: pin.createdBy === uploadId, pin };
}

/**
 * Removes a record and its reference together, then unpins the CID if that was the last one,
 * and lets go of the owner's replicated pin (its last owner's going releases every replica).
 */
export async function removeRecord(record: FileRecord): Promise<void> {
  if (!(await deleteFileWithPin(record))) throw errors.cidNotFound(); // deleted concurrently
  await releasePin(record.cid);
  await dropReplicaOwner(record.userId, record.cid).catch((e: unknown) =>
    // The record is gone either way; the pin's term still ends it (audit).
    logger.error('replica owner release failed', { cid: record.cid, error: e as Error }),
  );
}

/** Unpins `cid` if no record references it (or finishes an unpin that went stale). */
export async function releasePin(cid: string): Promise<boolean> {
  const pin = await claimUnpin(cid, STALE_UNPIN_SECONDS);
  if (!pin) return false;
  const adapter = await pinning();
  await adapter.unpin(cid, pin.ref);
  await s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: assembledKey(cid) }));
  await s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: carKey(cid) }));
  await deleteUnpinnedPin(cid);
  logger.info('unpinned', { cid, adapter: adapter.name });
  return true;
}
