import { AppError, errors } from '#lib/errors.ts';
import { logger } from '#lib/log.ts';
import type { PinRef } from '#lib/data/pins.ts';

/* The pinning port: what every pinning adapter offers (s3: pinning-s3.ts, pinata: pinning-pinata.ts). */
export type { PinRef };

export interface Added {
  cid: string;
  size: number;
  ref: PinRef;
}

/** What `add` is told besides the bytes. */
export interface AddMeta {
  name: string;
  uploadId: string;
  staged?: { key: string; etag: string };
}

/**
 * A pinning service. Content goes in as a stream and comes back as a stream; the CID is always
 * the project's own (lib/storage/cid.ts), whatever the service computes for itself. Reference
 * counting across records lives in the pin records (pins.ts), not here: `unpin` is only called
 * for a CID no record references any more.
 */
export interface PinningAdapter {
  readonly name: 's3' | 'pinata';
  /**
   * Whether `cat` checks every block against its CID. The root CID was computed from the very
   * bytes whose SHA-256 became the record's checksum, so such a read is the checksum check: the
   * whole file need not be hashed again (content addressing makes that check free).
   */
  readonly verifiedReads: boolean;
  /**
   * `staged`: the same bytes are already an object in the project's bucket (a presigned upload,
   * write-once, at this ETag); an adapter that keeps its data there may copy it server-side
   * instead of writing what it reads.
   */
  add(source: AsyncIterable<Uint8Array>, meta: AddMeta): Promise<Added>;
  /** After a failed upload: removes what `add` stored that nothing else uses. `existing` is the live pin's ref, if the CID was pinned already. */
  discard(added: Added, existing?: PinRef): Promise<void>;
  unpin(cid: string, ref: PinRef): Promise<void>;
  /** Whether all of the content is there (checked once, when a CID is newly pinned). */
  present(cid: string, ref: PinRef): Promise<boolean>;
  /** The content; CID_NOT_FOUND when gone, CHECKSUM_MISMATCH when a block is not what its CID says. */
  cat(cid: string, ref: PinRef): AsyncIterable<Uint8Array>;
}

/** Runs `fn` over `items`, at most `limit` at a time. */
export async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

/** Service failures become 502 PINNING_ERROR; our own AppErrors pass through. */
export async function pinningCall<T>(what: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (e instanceof AppError) throw e;
    logger.error('pinning service error', { what, error: e as Error });
    throw errors.pinningError(`pinning service error (${what})`);
  }
}

// ---------------------------------------------------------------------------------------------
// s3: blocks in the project's bucket
