import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { tableName } from './client.ts';
import { conditionalWrite } from './conditional.ts';
import { decoder, queryAll, readItem } from './items.ts';

/**
 * The value-move journal's records (lib/moves/journal.ts). Items:
 *
 *   MOVE#<txHash> / MOVE   one signed transaction that moves value: written before it is sent,
 *                          with its signed bytes and the block height after which it can no
 *                          longer land; while unsettled also in gsi1 MOVE#OPEN / <createdAt>#<txHash>
 *
 * A move is settled once, by a conditional write from `sent`: landed (with its slot), failed, or
 * expired — whichever the chain said first; a second settlement of the same move changes nothing.
 */
export const MOVE_STATUSES = ['sent', 'landed', 'failed', 'expired'] as const;
export type MoveStatus = (typeof MOVE_STATUSES)[number];

/** What the move was for: what settling it finishes (journal.ts `afterSettled`). */
export const movePurpose = z.discriminatedUnion('kind', [
  /**
   * A send from a user's chain A wallet or one-time address (compression, transfers, mints, token
   * creation, shielded deposits, sweeps, the service's bridge deposits), or from the test token's
   * mint authority (`test-tokens`, lib/transfer/test-token.ts); `operation` names the
   * route's work, `ref` the record of its own that the move belongs to (a deposit's, a bridge
   * transfer's id), which settles by the same chain rule on its own pass.
   */
  z.object({ kind: z.literal('wallet-send'), operation: z.string(), ref: z.string().optional() }),
  /** A swap's one transaction (lib/local/swap/pools.ts): its order executed when it lands, failed when it cannot. */
  z.object({ kind: z.literal('swap'), orderId: z.string(), amountOut: z.string(), outputAddress: z.string(), depositId: z.string().optional() }),
  /** A reward claim's mint (lib/rewards/rewards.ts): paid when it lands, released when it cannot. */
  z.object({ kind: z.literal('reward-claim'), epoch: z.number().int(), account: z.string() }),
]);
export type MovePurpose = z.infer<typeof movePurpose>;

const moveItem = z.object({
  txHash: z.string(),
  chain: z.literal('a'),
  userId: z.string(),
  /** The wallet whose signing lease the move holds until it settles, when a wallet signed it. */
  walletId: z.string().optional(),
  /** The Idempotency-Key record (its hashed table key) bound to the move, when the request had one. */
  idempotencyPk: z.string().optional(),
  purpose: movePurpose,
  /** The signed transaction, base64: sent again unchanged while it may still land. */
  signedTx: z.string(),
  lastValidBlockHeight: z.number().int(),
  status: z.enum(MOVE_STATUSES),
  slot: z.number().int().optional(),
  createdAt: z.string(),
  settledAt: z.string().optional(),
});
export type MoveRecord = z.infer<typeof moveItem>;
const moveDecoder = decoder('value move', moveItem);

const moveKey = (txHash: string) => ({ pk: `MOVE#${txHash}`, sk: 'MOVE' });
const OPEN = 'MOVE#OPEN';

/** Records a move about to be sent; false when this transaction is recorded already. */
export async function recordMove(m: Omit<MoveRecord, 'status' | 'slot' | 'settledAt'>): Promise<boolean> {
  return conditionalWrite(
    new PutCommand({
      TableName: tableName,
      Item: { ...moveKey(m.txHash), ...m, status: 'sent', gsi1pk: OPEN, gsi1sk: `${m.createdAt}#${m.txHash}` },
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
}

export const getMove = (txHash: string): Promise<MoveRecord | undefined> => readItem(moveKey(txHash), moveDecoder);

/** Settles a move that is still `sent`; false when it was settled already (by another settler). */
export async function settleMove(txHash: string, status: Exclude<MoveStatus, 'sent'>, at: string, slot?: number): Promise<boolean> {
  return conditionalWrite(
    new UpdateCommand({
      TableName: tableName,
      Key: moveKey(txHash),
      UpdateExpression: `SET #s = :s, settledAt = :at${slot !== undefined ? ', slot = :slot' : ''} REMOVE gsi1pk, gsi1sk`,
      ConditionExpression: '#s = :sent',
      ExpressionAttributeNames: { '#s': 'status' },
      ExpressionAttributeValues: { ':s': status, ':at': at, ':sent': 'sent', ...(slot !== undefined ? { ':slot': slot } : {}) },
    }),
  );
}

/** Unsettled moves recorded before `beforeIso`, oldest first. */
export async function listOpenMoves(beforeIso: string): Promise<MoveRecord[]> {
  const items = await queryAll({
    IndexName: 'gsi1',
    KeyConditionExpression: 'gsi1pk = :pk AND gsi1sk < :before',
    ExpressionAttributeValues: { ':pk': OPEN, ':before': beforeIso },
  });
  return items.map((i) => moveDecoder.decode(i));
}
