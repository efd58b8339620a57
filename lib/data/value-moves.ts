import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { tableName } from './client.ts';
import { conditionalWrite } from './conditional.ts';
import { decoder, queryAll, readItem, transactWrite, type TransactItems } from './items.ts';

/**
 * The value-move journal's records (chain A: lib/moves/journal.ts; chain B: lib/moves/chain-b.ts). Items:
 *
 *   MOVE#<txHash> / MOVE   one signed transaction that moves value: written before it is sent —
 *                          on chain A with its signed bytes and the block height after which it
 *                          can no longer land, on chain B with its account, nonce and signed INVOKE; while
 *                          unsettled also in gsi1 MOVE#OPEN (chain A) or MOVE#OPEN#B / <createdAt>#<txHash>
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

const common = {
  txHash: z.string(),
  userId: z.string(),
  /** The wallet whose signing lease the move holds until it settles, when a wallet signed it. */
  walletId: z.string().optional(),
  /** The Idempotency-Key record (its hashed table key) bound to the move, when the request had one. */
  idempotencyPk: z.string().optional(),
  purpose: movePurpose,
  status: z.enum(MOVE_STATUSES),
  createdAt: z.string(),
  settledAt: z.string().optional(),
};
const chainAMove = z.object({
  ...common,
  chain: z.literal('a'),
  /** The signed transaction, base64: sent again unchanged while it may still land. */
  signedTx: z.string(),
  lastValidBlockHeight: z.number().int(),
  slot: z.number().int().optional(),
});
/**
 * A chain B INVOKE (lib/moves/chain-b.ts): its account and the nonce it takes, which decide when a
 * transaction the node does not know can never land; what it moves, for the audit.
 */
const chainBMove = z.object({
  ...common,
  chain: z.literal('b'),
  account: z.string(),
  /** Decimal. */
  nonce: z.string(),
  moves: z.object({ token: z.string(), amount: z.string(), to: z.string() }),
  /** The signed INVOKE (lib/chains/chain-b/port.ts `StoredInvoke`): sent again unchanged while the node does not know it and its nonce is unused. */
  invoke: z
    .object({
      calls: z.array(z.object({ contractAddress: z.string(), entrypoint: z.string(), calldata: z.array(z.string()) })),
      resourceBounds: z.record(z.enum(['l1_gas', 'l2_gas', 'l1_data_gas']), z.object({ max_amount: z.string(), max_price_per_unit: z.string() })),
      tip: z.string(),
      signature: z.array(z.string()),
    })
    .optional(),
  /** Why it failed: REVERTED (ran; its fee charged, its nonce used) or REJECTED/refused (never ran: nothing moved). */
  failure: z.enum(['reverted', 'rejected']).optional(),
});
const moveItem = z.discriminatedUnion('chain', [chainAMove, chainBMove]);
export type MoveRecord = z.infer<typeof moveItem>;
export type ChainAMoveRecord = z.infer<typeof chainAMove>;
export type ChainBMoveRecord = z.infer<typeof chainBMove>;
const moveDecoder = decoder('value move', moveItem);

const moveKey = (txHash: string) => ({ pk: `MOVE#${txHash}`, sk: 'MOVE' });
/** The open moves' index partition, one per chain: each chain's settle pass reads its own. */
const openKey = (chain: MoveRecord['chain']) => (chain === 'a' ? 'MOVE#OPEN' : 'MOVE#OPEN#B');

type Unsettled<M> = M extends MoveRecord ? Omit<M, 'status' | 'slot' | 'settledAt' | 'failure'> : never;

/**
 * Records a move about to be sent; false when this transaction is recorded already. A chain B
 * transaction REJECTED (or never sent) is recorded again when it is sent again: its nonce unused,
 * the same INVOKE has the same hash (lib/moves/chain-b.ts).
 */
export async function recordMove(m: Unsettled<MoveRecord>): Promise<boolean> {
  return conditionalWrite(new PutCommand(recordMoveItem(m).Put));
}

/** `recordMove` as an item of a transaction that writes more (the lease's hold, the key's binding: lib/moves/journal.ts), its condition the same. */
export function recordMoveItem(m: Unsettled<MoveRecord>) {
  return {
    Put: {
      TableName: tableName,
      Item: { ...moveKey(m.txHash), ...m, status: 'sent', gsi1pk: openKey(m.chain), gsi1sk: `${m.createdAt}#${m.txHash}` },
      ConditionExpression: 'attribute_not_exists(pk) OR (#s = :failed AND failure = :rejected)',
      ExpressionAttributeNames: { '#s': 'status' },
      ExpressionAttributeValues: { ':failed': 'failed', ':rejected': 'rejected' },
    },
  };
}

/** Writes of other records (their builders' own conditions) that go in one transaction with a move's record or settlement. */
export type MoveWrites = TransactItems;

/**
 * `recordMove` with `before` and `after` in one transaction: -1 when all were written, else the
 * index of the first write whose condition failed (the record's own is `before.length`); nothing
 * is written then.
 */
export const recordMoveWith = (m: Unsettled<MoveRecord>, before: MoveWrites, after: MoveWrites): Promise<number> =>
  transactWrite([...before, recordMoveItem(m), ...after]);

/** `settleMove` with `also` in one transaction; false (nothing written) when any condition failed. */
export async function settleMoveWith(
  txHash: string,
  status: Exclude<MoveStatus, 'sent'>,
  at: string,
  details: SettledDetails,
  also: MoveWrites,
): Promise<boolean> {
  return (await transactWrite([settleMoveItem(txHash, status, at, details), ...also])) === -1;
}

export const getMove = (txHash: string): Promise<MoveRecord | undefined> => readItem(moveKey(txHash), moveDecoder);

/** What a settlement records besides its status: chain A's slot, or why a chain B move failed. */
export type SettledDetails = { slot?: number; failure?: 'reverted' | 'rejected' };

/** Settles a move that is still `sent`; false when it was settled already (by another settler). */
export async function settleMove(txHash: string, status: Exclude<MoveStatus, 'sent'>, at: string, details: SettledDetails | number = {}): Promise<boolean> {
  return conditionalWrite(new UpdateCommand(settleMoveItem(txHash, status, at, details).Update));
}

/** `settleMove` as an item of a transaction that writes more, its condition the same. */
export function settleMoveItem(txHash: string, status: Exclude<MoveStatus, 'sent'>, at: string, details: SettledDetails | number = {}) {
  const d = typeof details === 'number' ? { slot: details } : details;
  const extra = Object.entries(d).filter(([, v]) => v !== undefined);
  return {
    Update: {
      TableName: tableName,
      Key: moveKey(txHash),
      UpdateExpression: `SET #s = :s, settledAt = :at${extra.map(([k]) => `, ${k} = :${k}`).join('')} REMOVE gsi1pk, gsi1sk`,
      ConditionExpression: '#s = :sent',
      ExpressionAttributeNames: { '#s': 'status' },
      ExpressionAttributeValues: { ':s': status, ':at': at, ':sent': 'sent', ...Object.fromEntries(extra.map(([k, v]) => [`:${k}`, v])) },
    },
  };
}

/** Chain A's unsettled moves recorded before `beforeIso`, oldest first. */
export async function listOpenMoves(beforeIso: string): Promise<ChainAMoveRecord[]> {
  return (await openMoves('a', beforeIso)).filter((m): m is ChainAMoveRecord => m.chain === 'a');
}

/** Chain B's unsettled moves recorded before `beforeIso`, oldest first. */
export async function listOpenChainBMoves(beforeIso: string): Promise<ChainBMoveRecord[]> {
  return (await openMoves('b', beforeIso)).filter((m): m is ChainBMoveRecord => m.chain === 'b');
}

async function openMoves(chain: MoveRecord['chain'], beforeIso: string): Promise<MoveRecord[]> {
  const items = await queryAll({
    IndexName: 'gsi1',
    KeyConditionExpression: 'gsi1pk = :pk AND gsi1sk < :before',
    ExpressionAttributeValues: { ':pk': openKey(chain), ':before': beforeIso },
  });
  return items.map((i) => moveDecoder.decode(i));
}
