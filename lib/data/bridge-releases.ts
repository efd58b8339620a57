import * as z from 'zod';
import { putIf } from './conditional.ts';
import { decoder, readItem } from './items.ts';

/**
 * The chain A release of a withdrawal (issue 13), one per Hyperlane message id, as the
 * destination Mailbox keeps one "delivered" mark per message. No TTL (value moved):
 *
 *   BRIDGERELEASE#<messageId> / RELEASE   { bridgeId, signature, transaction, at }
 *
 * The signed transaction is stored BEFORE it is sent, so a relayer that dies mid-way leaves
 * exactly what it may have sent: the next pass finds it on chain, or sends the same bytes again
 * (a signature lands at most once), and only when the chain says that transaction can no longer
 * land (its blockhash expired) replaces it, conditioned on the one it read.
 */
const releaseSchema = z.object({
  bridgeId: z.string(),
  /** base58 signature of `transaction`. */
  signature: z.string(),
  /** The signed transaction, base64. */
  transaction: z.string(),
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
