import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { clock } from '#lib/clock.ts';
import { db, tableName } from './client.ts';
import { decoder, isConditionalFailure, putItem, readItem } from './items.ts';

/**
 * The STARK proofs of sessions (`/api/zkauth/prove|refresh`):
 *
 *   STARKPROOF#<proofId> / PROOF   StarkProofRecord
 *
 * TTL: the proof's expiry plus 30 days, so expired and revoked proofs still answer as such.
 */
const PROOF_RECORD_MARGIN_SECONDS = 30 * 24 * 3600;

const starkProofSchema = z.object({
  proofId: z.string(),
  userId: z.string(),
  sessionHash: z.string(),
  /** The proof, hex. */
  starkProof: z.string(),
  publicInputs: z.array(z.string()),
  airVersion: z.string(),
  /** The Poseidon felt stored on chain B, `0x` + 64 hex digits. */
  proofHash: z.string(),
  /** Epoch seconds. */
  expiresAt: z.number(),
  txHash: z.string(),
  contract: z.string(),
  revoked: z.boolean(),
  revokedReason: z.enum(['logout', 'superseded']).optional(),
  revokedAt: z.string().optional(),
  createdAt: z.string(),
});
export type StarkProofRecord = z.infer<typeof starkProofSchema>;
export type RevokeReason = NonNullable<StarkProofRecord['revokedReason']>;
export const starkProofDecoder = decoder('STARK proof', starkProofSchema);

const key = (proofId: string) => ({ pk: `STARKPROOF#${proofId}`, sk: 'PROOF' });

export async function putStarkProof(record: StarkProofRecord): Promise<void> {
  await putItem({ ...key(record.proofId), ...record, ttl: record.expiresAt + PROOF_RECORD_MARGIN_SECONDS });
}

export const getStarkProof = (proofId: string): Promise<StarkProofRecord | undefined> => readItem(key(proofId), starkProofDecoder);

/** Marks a proof revoked; true when this call revoked it (false when it already was, or is gone). */
export async function revokeStarkProof(proofId: string, reason: RevokeReason): Promise<boolean> {
  try {
    await db.send(
      new UpdateCommand({
        TableName: tableName,
        Key: key(proofId),
        UpdateExpression: 'SET revoked = :t, revokedReason = :r, revokedAt = :at',
        ConditionExpression: 'attribute_exists(pk) AND revoked = :f',
        ExpressionAttributeValues: { ':t': true, ':f': false, ':r': reason, ':at': clock.now().toISOString() },
      }),
    );
    return true;
  } catch (e) {
    if (isConditionalFailure(e)) return false;
    throw e;
  }
}
