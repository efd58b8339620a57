import * as z from 'zod';
import { putIf, updateIf } from './conditional.ts';
import { decoder, readItem } from './items.ts';

/**
 * The chain A release of a withdrawal (lib/bridge/chain-a-release.ts), one per Hyperlane message id, as the
 * destination Mailbox keeps one "delivered" mark per message. No TTL (value moved):
 *
 *   BRIDGERELEASE#<messageId> / RELEASE   { bridgeId, signature, transaction, lastValidBlockHeight, at }
 *
 * The signed transaction and its blockhash's last valid block height are stored BEFORE it is sent,
 * so a relayer that dies mid-way leaves exactly what it may have sent: the next pass finds it on
 * chain, or sends the same bytes again (a signature lands at most once), and only when the chain
 * says that transaction can no longer land (block height past that one, and no status in the
 * history: lib/chains/chain-a/settle.ts) replaces it, conditioned on the one it read.
 */
const releaseSchema = z.object({
  bridgeId: z.string(),
  /** base58 signature of `transaction`. */
  signature: z.string(),
  /** The signed transaction, base64. */
  transaction: z.string(),
  /** The block height after which the transaction can no longer land (absent in records from before heights were kept: stampReleaseHeight). */
  lastValidBlockHeight: z.number().int().optional(),
  at: z.string(),
});
export type ReleaseAttempt = z.infer<typeof releaseSchema>;
const releaseDecoder = decoder('bridge release', releaseSchema);
const releaseKey = (messageId: string) => ({ pk: `BRIDGERELEASE#${messageId}`, sk: 'RELEASE' });

export const readRelease = (messageId: string): Promise<ReleaseAttempt | undefined> => readItem(releaseKey(messageId), releaseDecoder);

/**
 * Records `attempt` as the message's release: the first one, or instead of `replacing` (the
 * signature read before). False when another relayer recorded a different one meanwhile.
 */
export async function claimRelease(messageId: string, attempt: ReleaseAttempt, replacing?: string): Promise<boolean> {
  return putIf(
    { ...releaseKey(messageId), ...attempt },
    replacing === undefined
      ? { ConditionExpression: 'attribute_not_exists(pk)' }
      : { ConditionExpression: '#s = :prev', ExpressionAttributeNames: { '#s': 'signature' }, ExpressionAttributeValues: { ':prev': replacing } },
  );
}

/**
 * Gives a release recorded without its last valid block height one (a bound no lower than the real
 * one: lib/chains/chain-a/settle.ts `heightBound`), once, while it is still the message's release.
 */
export async function stampReleaseHeight(messageId: string, signature: string, lastValidBlockHeight: number): Promise<boolean> {
  const stamped = await updateIf(
    releaseKey(messageId),
    { set: ['lastValidBlockHeight = :lv'], values: { ':lv': lastValidBlockHeight } },
    {
      ConditionExpression: '#s = :sig AND attribute_not_exists(lastValidBlockHeight)',
      ExpressionAttributeNames: { '#s': 'signature' },
      ExpressionAttributeValues: { ':sig': signature },
    },
  );
  return stamped !== undefined;
}
