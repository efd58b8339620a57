import { DeleteCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { createHash } from 'node:crypto';
import * as z from 'zod';
import { db, tableName } from './client.ts';
import { decoder, deleteItem, isConditionalFailure, readItem } from './items.ts';

/**
 * Replicated pins: one record per root CID, and the copy journal of each of its replicas
 * (no TTL: a pin lives until its term ends or its last owner lets go):
 *
 *   REPLICA#<cid> / PIN            ReplicaPin, with gsi1 = REPLICAS#<0-f> / <cid> (the audit's list)
 *   REPLICA#<cid> / COPY#<target>  { done }: how many of `blocks` (in order) the target holds
 *
 * Every write of the record is conditional on the `version` it was read at (optimistic
 * locking): the request route, the worker and the audit never overwrite each other's news.
 */
export const replicaStatuses = ['pending', 'pinning', 'pinned', 'degraded', 'failed', 'releasing'] as const;

const targetStateSchema = z.object({
  state: z.enum(['pending', 'ok', 'unreachable', 'failed']),
  /** Why, when not ok. */
  reason: z.string().optional(),
  at: z.number(),
});

const auditSchema = z.object({
  at: z.number(),
  /** Blocks read back and checked against their CIDs, over all replicas. */
  checked: z.number(),
  /** Missing or corrupted blocks found and repaired from a healthy replica. */
  repaired: z.number(),
  /** Targets that did not answer. */
  unreachable: z.array(z.string()),
});

const replicaPinSchema = z.object({
  cid: z.string(),
  /** Users whose request keeps the pin (each holds a file with this CID). */
  owners: z.array(z.string()),
  replicas: z.number(),
  status: z.enum(replicaStatuses),
  reason: z.string().optional(),
  /** The targets holding (or meant to hold) a replica. */
  placements: z.array(z.string()),
  targets: z.record(z.string(), targetStateSchema),
  /** Every block of the DAG, root first (set by the worker's first run). */
  blocks: z.array(z.string()).optional(),
  expiresAtMs: z.number(),
  createdAtMs: z.number(),
  updatedAtMs: z.number(),
  lastAudit: auditSchema.optional(),
  /** Blocks repaired over the pin's life. */
  repairs: z.number(),
  version: z.number(),
});
export type ReplicaPin = z.infer<typeof replicaPinSchema>;
export type ReplicaTargetState = z.infer<typeof targetStateSchema>;
export type ReplicaAudit = z.infer<typeof auditSchema>;
const pinDecoder = decoder('replica pin', replicaPinSchema);
const journalDecoder = decoder('replica copy journal', z.object({ done: z.number() }));

/**
 * The audit's list in gsi1, split 16 ways (as the open upload journals are), by the first hex digit
 * of the CID's SHA-256 (CIDs share their leading characters): the index holds whole items, so
 * every write of a pin record (its copies, every audit) rewrites its entry, and one index
 * partition would take them all. Records written before the split are in `REPLICAS` until their
 * next write moves them; the list reads it first.
 */
const LEGACY_LIST = 'REPLICAS';
const listPartition = (n: number) => `REPLICAS#${n.toString(16)}`;
const listPartitionOf = (cid: string) => listPartition(createHash('sha256').update(cid).digest()[0]! >> 4);
const LIST_PARTITIONS = [LEGACY_LIST, ...Array.from({ length: 16 }, (_, n) => listPartition(n))];

/** A place in the list: `<partition>/<cid>` (after that CID), `<partition>/` (from its start), or a bare CID (before the split: in `REPLICAS`). */
function listPlace(cursor: string | undefined): { index: number; after?: string } {
  if (cursor === undefined) return { index: 0 };
  const slash = cursor.indexOf('/');
  if (slash < 0) return { index: 0, after: cursor };
  const index = LIST_PARTITIONS.indexOf(cursor.slice(0, slash));
  if (index < 0) throw new Error(`replica pin list: not a cursor: ${cursor}`);
  return { index, after: cursor.slice(slash + 1) || undefined };
}

const pinKey = (cid: string) => ({ pk: `REPLICA#${cid}`, sk: 'PIN' });
const journalKey = (cid: string, target: string) => ({ pk: `REPLICA#${cid}`, sk: `COPY#${target}` });

export const getReplicaPin = (cid: string): Promise<ReplicaPin | undefined> => readItem(pinKey(cid), pinDecoder);

/**
 * A page of the replicated pins' CIDs, partition by partition and in CID order within each, after
 * `cursor` (one this returned earlier; none: from the start). The audit's round lists them page
 * by page. `next`: where the next page starts; absent once the list is done.
 */
export async function listReplicaPinCids(cursor: string | undefined, limit: number): Promise<{ cids: string[]; next?: string }> {
  let { index, after } = listPlace(cursor);
  const cids: string[] = [];
  while (index < LIST_PARTITIONS.length) {
    const partition = LIST_PARTITIONS[index]!;
    const out = await db.send(
      new QueryCommand({
        TableName: tableName,
        IndexName: 'gsi1',
        KeyConditionExpression: after ? 'gsi1pk = :p AND gsi1sk > :after' : 'gsi1pk = :p',
        ExpressionAttributeValues: { ':p': partition, ...(after ? { ':after': after } : {}) },
        ProjectionExpression: 'cid',
        Limit: limit - cids.length,
      }),
    );
    cids.push(...(out.Items ?? []).map((i) => String(i.cid)));
    if (out.LastEvaluatedKey) {
      // This partition may hold more: the page ends here if full, else the query goes on after it.
      after = String(out.LastEvaluatedKey.gsi1sk);
      if (cids.length >= limit) return { cids, next: `${partition}/${after}` };
      continue;
    }
    index++;
    after = undefined;
    if (cids.length >= limit) return { cids, ...(index < LIST_PARTITIONS.length ? { next: `${LIST_PARTITIONS[index]}/` } : {}) };
  }
  return { cids };
}

/**
 * Writes `pin` if the stored record is still at `pin.version - 1` (or absent, for version 1).
 * False when someone else wrote it meanwhile: read again and redo.
 */
export async function saveReplicaPin(pin: ReplicaPin): Promise<boolean> {
  const fresh = pin.version === 1;
  try {
    await db.send(
      new PutCommand({
        TableName: tableName,
        Item: { ...pinKey(pin.cid), gsi1pk: listPartitionOf(pin.cid), gsi1sk: pin.cid, ...pin },
        ConditionExpression: fresh ? 'attribute_not_exists(pk)' : 'version = :v',
        ...(fresh ? {} : { ExpressionAttributeValues: { ':v': pin.version - 1 } }),
      }),
    );
    return true;
  } catch (e) {
    if (isConditionalFailure(e)) return false;
    throw e;
  }
}

/** Deletes the record if it is still at `version`. */
export async function deleteReplicaPin(cid: string, version: number): Promise<boolean> {
  try {
    await db.send(
      new DeleteCommand({ TableName: tableName, Key: pinKey(cid), ConditionExpression: 'version = :v', ExpressionAttributeValues: { ':v': version } }),
    );
    return true;
  } catch (e) {
    if (isConditionalFailure(e)) return false;
    throw e;
  }
}

/** How many of the pin's blocks `target` holds, by the journal (0 when none). */
export async function copiedCount(cid: string, target: string): Promise<number> {
  return (await readItem(journalKey(cid, target), journalDecoder))?.done ?? 0;
}

/** Records that `target` now holds the first `done` blocks (never moves back). */
export async function recordCopied(cid: string, target: string, done: number): Promise<void> {
  try {
    await db.send(
      new UpdateCommand({
        TableName: tableName,
        Key: journalKey(cid, target),
        UpdateExpression: 'SET done = :d',
        ConditionExpression: 'attribute_not_exists(done) OR done < :d',
        ExpressionAttributeValues: { ':d': done },
      }),
    );
  } catch (e) {
    if (!isConditionalFailure(e)) throw e;
  }
}

export const forgetCopies = (cid: string, target: string): Promise<void> => deleteItem(journalKey(cid, target));
