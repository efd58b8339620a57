import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { db, tableName } from './client.ts';
import { decoder, isConditionalFailure, listPartition, putNew, queryPartition, readItem, transactWrite, type TransactItems } from './items.ts';

/**
 * Bridge transfers (lib/bridge/bridge.ts). Items, no TTL (a record of value in flight is kept):
 *
 *   BRIDGES#<userId> / BRIDGE#<id>          the record; while it is open (not terminal) also
 *                                           gsi1: BRIDGE#OPEN / <expiresAt>#<id>, the relayer's queue
 *   BRIDGESRC#<bridgeType>#<txHash> / SRC   a source transaction is attached to one record only,
 *                                           released when that record fails (failBridge)
 *   BRIDGENONCE#<origin> / NONCE {next}     the local origin mailbox's message nonce
 *
 * Every state change is a conditional update on the current status (so two writers never both
 * win) that appends `{status, at}` to the record's history.
 */
export const BRIDGE_STATUSES = ['pending', 'submitted', 'source_confirmed', 'completed', 'failed', 'expired', 'cancelled'] as const;
export type BridgeStatus = (typeof BRIDGE_STATUSES)[number];
export const TERMINAL: readonly BridgeStatus[] = ['completed', 'failed', 'expired', 'cancelled'];

const OPEN_PARTITION = 'BRIDGE#OPEN';

const bridgeSchema = z.object({
  id: z.string(),
  userId: z.string(),
  bridgeType: z.enum(['chaina-chainb', 'ethereum-chainb']),
  direction: z.enum(['deposit', 'withdraw']),
  token: z.string(),
  /** Decimal string in whole units, as the caller gave it. */
  amount: z.string(),
  /** Smallest units of the source token, decimal string (no digits lost). */
  amountUnits: z.string(),
  destAddress: z.string(),
  status: z.enum(BRIDGE_STATUSES),
  sourceTxHash: z.string().nullable(),
  destTxHash: z.string().nullable(),
  /** Hyperlane message id or StarkGate L1→L2 message hash, once known. */
  messageId: z.string().nullable(),
  /** Why a record failed (for the caller; never a secret). */
  failureReason: z.string().nullable(),
  /** The caller's wallet that sent the source transaction, when the service sent it (chain A for deposits, chain B for withdrawals). */
  walletId: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
  expiresAt: z.string(),
  submittedAt: z.string().nullable(),
  history: z.array(z.object({ status: z.enum(BRIDGE_STATUSES), at: z.string() })),
});
export type BridgeRecord = z.infer<typeof bridgeSchema>;
const bridgeDecoder = decoder('bridge transfer', bridgeSchema);

const recordKey = (userId: string, id: string) => ({ pk: `BRIDGES#${userId}`, sk: `BRIDGE#${id}` });
const openIndex = (r: Pick<BridgeRecord, 'expiresAt' | 'id'>) => ({ gsi1pk: OPEN_PARTITION, gsi1sk: `${r.expiresAt}#${r.id}` });
const sourceKey = (bridgeType: string, txHash: string) => ({ pk: `BRIDGESRC#${bridgeType}#${txHash}`, sk: 'SRC' });

export async function insertBridge(r: BridgeRecord): Promise<void> {
  await putNew({ ...recordKey(r.userId, r.id), ...r, ...openIndex(r) });
}

/** The caller's record; someone else's id is simply not there. */
export const readBridge = (userId: string, id: string): Promise<BridgeRecord | undefined> => readItem(recordKey(userId, id), bridgeDecoder);

/** The caller's records, newest first. */
export async function listBridges(userId: string): Promise<BridgeRecord[]> {
  const all = await listPartition(`BRIDGES#${userId}`, bridgeDecoder, { prefix: 'BRIDGE#' });
  return all.sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : a.id < b.id ? 1 : -1));
}

/** Open records (any user), soonest expiry first: the relayer's work list. Eventually consistent: re-read before acting. */
export async function listOpenBridges(): Promise<{ userId: string; id: string }[]> {
  const items = await queryPartition(OPEN_PARTITION, { index: 'gsi1' });
  return items.map((i) => bridgeDecoder.decode(i)).map((r) => ({ userId: r.userId, id: r.id }));
}

export interface Transition {
  from: readonly BridgeStatus[];
  to: BridgeStatus;
  at: string;
  /** Fields set together with the status. */
  set?: Partial<Pick<BridgeRecord, 'sourceTxHash' | 'destTxHash' | 'messageId' | 'failureReason' | 'submittedAt'>>;
  /** Only while the record's expiresAt is after this time (ISO): a source transaction never revives an overdue record. */
  notExpiredAt?: string;
}

function transitionUpdate(userId: string, id: string, t: Transition) {
  const names: Record<string, string> = { '#status': 'status', '#updatedAt': 'updatedAt', '#history': 'history' };
  const values: Record<string, unknown> = { ':to': t.to, ':at': t.at, ':entry': [{ status: t.to, at: t.at }] };
  const sets = ['#status = :to', '#updatedAt = :at', '#history = list_append(#history, :entry)'];
  for (const [k, v] of Object.entries(t.set ?? {})) {
    names[`#${k}`] = k;
    values[`:${k}`] = v;
    sets.push(`#${k} = :${k}`);
  }
  const from = t.from.map((s, i) => {
    values[`:from${i}`] = s;
    return `:from${i}`;
  });
  // A terminal record leaves the relayer's queue.
  const remove = TERMINAL.includes(t.to) ? ' REMOVE gsi1pk, gsi1sk' : '';
  let live = '';
  if (t.notExpiredAt !== undefined) {
    names['#expiresAt'] = 'expiresAt';
    values[':notExpiredAt'] = t.notExpiredAt;
    live = ' AND #expiresAt > :notExpiredAt';
  }
  return {
    TableName: tableName,
    Key: recordKey(userId, id),
    UpdateExpression: `SET ${sets.join(', ')}${remove}`,
    ConditionExpression: `attribute_exists(pk) AND #status IN (${from.join(', ')})${live}`,
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
  };
}

/** Moves the record from one of `t.from` to `t.to`; undefined when it is not (or no longer) in such a state. */
export async function transitionBridge(userId: string, id: string, t: Transition): Promise<BridgeRecord | undefined> {
  try {
    const out = await db.send(new UpdateCommand({ ...transitionUpdate(userId, id, t), ReturnValues: 'ALL_NEW' }));
    return out.Attributes ? bridgeDecoder.decode(out.Attributes) : undefined;
  } catch (e) {
    if (isConditionalFailure(e)) return undefined;
    throw e;
  }
}

export type AttachResult = 'attached' | 'state' | 'source-taken';

/**
 * pending → submitted with its source transaction (before its expiresAt), in one transaction with
 * the claim on that transaction: one source transaction never backs two records (it would be
 * credited twice).
 */
export async function attachSource(userId: string, r: Pick<BridgeRecord, 'id' | 'bridgeType'>, txHash: string, at: string): Promise<AttachResult> {
  const items: TransactItems = [
    { Update: transitionUpdate(userId, r.id, { from: ['pending'], to: 'submitted', at, set: { sourceTxHash: txHash, submittedAt: at }, notExpiredAt: at }) },
    {
      Put: {
        TableName: tableName,
        Item: { ...sourceKey(r.bridgeType, txHash), userId, bridgeId: r.id, createdAt: at },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
  ];
  const failed = await transactWrite(items);
  return failed === -1 ? 'attached' : failed === 0 ? 'state' : 'source-taken';
}

/**
 * `from` → failed, and the claim on its source transaction (if any) released in the same
 * transaction: a record that failed did not take that transaction, so the record the transaction
 * does name may still attach it (test/api/bridge.test.ts, front-running: a front-runner's record never keeps a deposit that is
 * not its own). The claim is deleted only while it is this record's. Undefined when the record
 * is not (or no longer) in such a state.
 */
export async function failBridge(
  r: Pick<BridgeRecord, 'userId' | 'id' | 'bridgeType'>,
  t: { from: readonly BridgeStatus[]; at: string; failureReason: string; sourceTxHash: string | null },
): Promise<BridgeRecord | undefined> {
  const transition: Transition = { from: t.from, to: 'failed', at: t.at, set: { failureReason: t.failureReason } };
  if (!t.sourceTxHash) return transitionBridge(r.userId, r.id, transition);
  const failed = await transactWrite([
    { Update: transitionUpdate(r.userId, r.id, transition) },
    {
      Delete: {
        TableName: tableName,
        Key: sourceKey(r.bridgeType, t.sourceTxHash),
        ConditionExpression: 'attribute_not_exists(pk) OR bridgeId = :id',
        ExpressionAttributeValues: { ':id': r.id },
      },
    },
  ]);
  if (failed === 0) return undefined;
  if (failed === 1) throw new Error(`bridge ${r.id}: its source transaction is claimed by another record`);
  return readBridge(r.userId, r.id);
}

/** The next message nonce of a local origin mailbox (0, 1, 2, … atomically). */
export async function takeMailboxNonce(origin: number): Promise<number> {
  const out = await db.send(
    new UpdateCommand({
      TableName: tableName,
      Key: { pk: `BRIDGENONCE#${origin}`, sk: 'NONCE' },
      UpdateExpression: 'ADD #next :one',
      ExpressionAttributeNames: { '#next': 'next' },
      ExpressionAttributeValues: { ':one': 1 },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  return Number(out.Attributes?.next) - 1;
}
