import { createHash, randomUUID } from 'node:crypto';
import { clock } from '#lib/clock.ts';
import * as z from 'zod';
import { tableName } from './client.ts';
import { deleteIf, mergeUpdates, putIf, updateExpression, updateIf } from './conditional.ts';
import { absentOrExpired, allOf, anyOf, decoder, readItem, withCondition, type Condition, type TransactItems } from './items.ts';
import { embeddedLease, leaseFor, leaseSchema } from './leases.ts';

/**
 * Idempotency records: the first answer to a request made with an `Idempotency-Key`, kept for a
 * day so that a retry gets that answer back instead of doing the work again. A record is claimed
 * (`in_progress`, with a lock that outlives the function's timeout) before the work starts and
 * completed with the answer after it; a failed attempt releases it so that a retry may run.
 */
export const IDEMPOTENCY_TTL_SECONDS = 24 * 3600;
/** DynamoDB items hold 400 KB: larger answers are not kept (a replay then says so). */
const MAX_STORED_BODY = 300 * 1024;

export interface StoredResponse {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
  isBase64Encoded?: boolean;
}

export type Claim =
  /** `owner`: this attempt's own name on the record (its lease's owner), for every later write of it. */
  { kind: 'claimed'; owner: string } | { kind: 'replay'; response: StoredResponse | null } | { kind: 'mismatch' } | { kind: 'in_progress'; retryAfter: number };

const storedResponseSchema = z.object({
  statusCode: z.number(),
  headers: z.record(z.string(), z.string()),
  body: z.string(),
  isBase64Encoded: z
    .boolean()
    .optional()
    .transform((b) => b === true),
});

const idempotencySchema = z.object({
  status: z.enum(['in_progress', 'completed']),
  fingerprint: z.string(),
  /**
   * The attempt's lease while in progress (lib/data/leases.ts). Its owner names the attempt, not the
   * request: two attempts of one request (a retry after the first one's lock lapsed) have the same
   * fingerprint, and only the one holding the lease may complete, release or bind the record.
   */
  lease: leaseSchema.optional(),
  /**
   * The lease's expiry in epoch seconds, as records held it before `lease`: still written beside
   * it for instances of the code before (during a deploy), and honoured on records without `lease`.
   */
  lockedUntil: z.number(),
  // An answer that cannot be read back is replayed as "not kept", not as a broken record.
  response: storedResponseSchema.nullable().catch(null),
  /** The transaction the claim is bound to (`bindToTransaction`), and the answer kept for it. */
  txHash: z.string().optional(),
  ifLanded: storedResponseSchema.optional().catch(undefined),
  ttl: z.number(),
});
export const idempotencyDecoder = decoder('idempotency record', idempotencySchema);

/** The scope (client and route) and the key are hashed: a key is the client's text, never a table key as given. */
const keyOf = (scope: string, key: string) => ({
  pk: `IDEMPOTENCY#${createHash('sha256').update(scope).update('\n').update(key).digest('base64url')}`,
  sk: 'IDEMPOTENCY',
});

export async function claim(
  scope: string,
  key: string,
  fingerprint: string,
  lockSeconds: number,
  owner = `${fingerprint.slice(0, 16)}:${randomUUID()}`,
): Promise<Claim> {
  const nowMs = clock.nowMs();
  const now = Math.floor(nowMs / 1000);
  const lease = leaseFor(owner, lockSeconds, nowMs);
  const claimed = await putIf(
    { ...keyOf(scope, key), status: 'in_progress', fingerprint, lease, lockedUntil: now + lockSeconds, response: null, ttl: now + IDEMPOTENCY_TTL_SECONDS },
    // Absent, expired, or an attempt that died holding the lease (of either shape) — unless it died
    // with the key bound to a transaction it sent: only the journal's settlement of that transaction
    // frees the key then (`settleBound`), however long it takes. Taken over, a retry would send a
    // second transaction while the first may have landed (its nonce used, the next one free).
    anyOf(
      absentOrExpired(now),
      allOf(inProgress, embeddedLease.free(nowMs), {
        ConditionExpression: 'lockedUntil <= :now AND attribute_not_exists(txHash)',
        ExpressionAttributeValues: { ':now': now },
      }),
    ),
  );
  if (claimed) return { kind: 'claimed', owner };
  const record = await readItem(keyOf(scope, key), idempotencyDecoder);
  // Gone between the two calls (expired): the caller may simply try again.
  if (!record) return { kind: 'in_progress', retryAfter: 1 };
  if (record.fingerprint !== fingerprint) return { kind: 'mismatch' };
  if (record.status === 'in_progress') {
    // Bound to a transaction and its hold over (MOVE_HOLD_SECONDS, far past any blockhash's life),
    // its attempt gone without completing the key: had the transaction failed or expired, the journal
    // would have freed the key. It landed, or the chain has still not settled it; either way the
    // answer kept at binding (202 `submitted`, naming it) is true, and a new attempt could send twice.
    if (record.txHash && record.ifLanded && expiresAtSeconds(record) <= now) return { kind: 'replay', response: record.ifLanded };
    return { kind: 'in_progress', retryAfter: Math.max(1, expiresAtSeconds(record) - now) };
  }
  return { kind: 'replay', response: record.response };
}

const inProgress: Condition = {
  ConditionExpression: '#status = :progress',
  ExpressionAttributeNames: { '#status': 'status' },
  ExpressionAttributeValues: { ':progress': 'in_progress' },
};
/**
 * This attempt holds the record: in progress, its lease's owner `owner`. A record of the code before
 * (no lease, `lockedUntil` only) is held by its request's fingerprint, as that code wrote it.
 */
const heldBy = (owner: string): Condition =>
  allOf(
    inProgress,
    anyOf(embeddedLease.heldBy(owner), {
      ConditionExpression: 'attribute_not_exists(#heldLease) AND fingerprint = :heldFp',
      ExpressionAttributeNames: { '#heldLease': 'lease' },
      ExpressionAttributeValues: { ':heldFp': owner },
    }),
  );
const expiresAtSeconds = (r: z.infer<typeof idempotencySchema>) => (r.lease ? Math.ceil(r.lease.expiresAt / 1000) : r.lockedUntil);

export async function complete(scope: string, key: string, owner: string, response: StoredResponse): Promise<void> {
  const kept = response.body.length <= MAX_STORED_BODY ? response : null;
  const done = await updateIf(
    keyOf(scope, key),
    {
      set: ['#status = :done', '#response = :response', '#ttl = :ttl'],
      names: { '#response': 'response', '#ttl': 'ttl' },
      values: { ':done': 'completed', ':response': kept, ':ttl': clock.nowSeconds() + IDEMPOTENCY_TTL_SECONDS },
    },
    heldBy(owner),
  );
  if (!done) throw new ClaimLost();
}

/** The record is no longer this attempt's (its lease expired and another took it, or it was settled). */
export class ClaimLost extends Error {
  constructor() {
    super('the idempotency record is no longer held by this attempt');
    this.name = 'ClaimLost';
  }
}

/**
 * After a failed attempt: the key may be used again (only our own claim is removed) — unless the
 * claim is bound to a transaction the attempt sent (`bindToTransaction`). That transaction may have
 * landed whatever the attempt's error says, so the key is not freed (a retry would send a second
 * one): it is completed with the answer kept at binding (202 `submitted` naming the transaction),
 * which a retry gets. A transaction that failed or expired frees the key through the journal
 * (`settleBound`), as for an attempt that died.
 */
export async function release(scope: string, key: string, owner: string): Promise<void> {
  if (await deleteIf(keyOf(scope, key), allOf(heldBy(owner), notBound))) return;
  await updateIf(
    keyOf(scope, key),
    {
      set: ['#status = :done', '#response = ifLanded', '#ttl = :ttl'],
      names: { '#response': 'response', '#ttl': 'ttl' },
      values: { ':done': 'completed', ':ttl': clock.nowSeconds() + IDEMPOTENCY_TTL_SECONDS },
    },
    allOf(heldBy(owner), { ConditionExpression: 'attribute_exists(txHash)' }),
  );
}
const notBound: Condition = { ConditionExpression: 'attribute_not_exists(txHash)' };

/** The record's table key (hashed), as a value move keeps it to settle the record later (lib/moves/journal.ts). */
export const recordKeyOf = (scope: string, key: string): string => keyOf(scope, key).pk;

/**
 * Binds an attempt's claim to the transaction it is about to send: the claim now lasts `seconds`
 * for the attempt and names the transaction; if the attempt dies, the key stays bound (`claim`
 * takes it over no more) until the journal settles the transaction (`settleBound`). False when
 * the claim is no longer this attempt's.
 */
export async function bindToTransaction(scope: string, key: string, owner: string, txHash: string, seconds: number, landed: StoredResponse): Promise<boolean> {
  const b = binding(owner, txHash, seconds, landed);
  return (await updateIf(keyOf(scope, key), b.update, b.condition)) !== undefined;
}

/** `bindToTransaction` as an item of a transaction that writes more (the value-move journal's record: lib/moves/journal.ts), its condition the same. */
export function bindToTransactionItem(
  scope: string,
  key: string,
  owner: string,
  txHash: string,
  seconds: number,
  landed: StoredResponse,
): TransactItems[number] {
  const b = binding(owner, txHash, seconds, landed);
  return { Update: { TableName: tableName, Key: keyOf(scope, key), UpdateExpression: updateExpression(b.update), ...withCondition(b.condition, b.update) } };
}

function binding(owner: string, txHash: string, seconds: number, landed: StoredResponse) {
  const lease = leaseFor(owner, seconds);
  const update = mergeUpdates(embeddedLease.take(lease), {
    set: ['txHash = :tx', 'lockedUntil = :until', 'ifLanded = :landed'],
    values: { ':tx': txHash, ':until': Math.ceil(lease.expiresAt / 1000), ':landed': landed },
  });
  return { update, condition: heldBy(owner) };
}

/**
 * The bound transaction has settled. Landed: a claim its attempt never completed (it died) is
 * completed with the answer kept at binding (202 `submitted` naming the transaction), so a retry gets
 * that, never a second transaction. Failed or expired: nothing moved, and the key is freed,
 * whether its attempt died or answered 202, so that a retry may do the work.
 */
export async function settleBound(pk: string, txHash: string, outcome: 'landed' | 'failed' | 'expired'): Promise<void> {
  const key = { pk, sk: 'IDEMPOTENCY' };
  const bound: Condition = { ConditionExpression: 'txHash = :tx', ExpressionAttributeValues: { ':tx': txHash } };
  if (outcome === 'landed') {
    await updateIf(
      key,
      { set: ['#status = :done', '#response = ifLanded'], names: { '#response': 'response' }, values: { ':done': 'completed' } },
      allOf(inProgress, bound),
    );
  } else {
    await deleteIf(key, bound);
  }
}
