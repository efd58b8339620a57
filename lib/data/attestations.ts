import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { queryPage } from './query-page.ts';
import { db, tableName } from './client.ts';
import { decoder, isConditionalFailure, listPartition, readItem, transactWrite } from './items.ts';

/**
 * Attestations, their nullifiers and the revocation list (lib/attest):
 *
 *   ATTEST#<id> / ATTEST            AttestationRecord; gsi1 = ATTESTS#<subjectId> / <issuedAt>#<id>
 *   ATTESTNULL#<nullifier> / NULL   {attestationId}: one attestation per nullifier (subject × scope)
 *   ATTESTREVOKED / <revokedAt>#<id> {id, hash, revokedAt}: the revocation list, in order
 *
 * No ttl: an expired attestation still answers `expired` (and `revoked`) when verified.
 * Issuing writes the attestation and its nullifier in one transaction, so of two concurrent
 * requests with the same nullifier exactly one succeeds.
 */
const pointSchema = z.object({ x: z.string(), y: z.string() });
const recordSchema = z.object({
  id: z.string(),
  subjectId: z.string(),
  schema: z.string(),
  claims: z.record(z.string(), z.string()),
  nullifier: z.string(),
  scope: z.string(),
  scopeSignal: z.string(),
  issuedAt: z.string(),
  expiresAt: z.string(),
  issuer: z.object({ algorithm: z.literal('eddsa-poseidon-babyjubjub'), publicKey: pointSchema, keyId: z.string() }),
  signature: z.object({ R8: pointSchema, S: z.string() }),
  hash: z.string(),
  revoked: z.boolean(),
  revokedAt: z.string().optional(),
  anchor: z.object({ txHash: z.string(), contractAddress: z.string() }).optional(),
});
export type AttestationRecord = z.infer<typeof recordSchema>;
export const attestationDecoder = decoder('attestation', recordSchema);

const revokedSchema = z.object({ id: z.string(), hash: z.string(), revokedAt: z.string() });
export type RevokedEntry = z.infer<typeof revokedSchema>;
const revokedDecoder = decoder('attestation revocation', revokedSchema);

const key = (id: string) => ({ pk: `ATTEST#${id}`, sk: 'ATTEST' });
const nullifierKey = (nullifier: string) => ({ pk: `ATTESTNULL#${nullifier}`, sk: 'NULL' });
const subjectPartition = (subjectId: string) => `ATTESTS#${subjectId}`;
const REVOKED_PK = 'ATTESTREVOKED';

/** Writes a new attestation with its nullifier; false when the nullifier is taken. */
export async function insertAttestation(a: AttestationRecord): Promise<boolean> {
  const failed = await transactWrite([
    {
      Put: {
        TableName: tableName,
        Item: { ...key(a.id), gsi1pk: subjectPartition(a.subjectId), gsi1sk: `${a.issuedAt}#${a.id}`, ...a },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    { Put: { TableName: tableName, Item: { ...nullifierKey(a.nullifier), attestationId: a.id }, ConditionExpression: 'attribute_not_exists(pk)' } },
  ]);
  if (failed === 1) return false;
  if (failed >= 0) throw new Error('attestation id collision');
  return true;
}

export const getAttestation = (id: string): Promise<AttestationRecord | undefined> => readItem(key(id), attestationDecoder);

export async function setAnchor(id: string, anchor: NonNullable<AttestationRecord['anchor']>): Promise<void> {
  await db.send(
    new UpdateCommand({
      TableName: tableName,
      Key: key(id),
      UpdateExpression: 'SET #anchor = :anchor',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeNames: { '#anchor': 'anchor' },
      ExpressionAttributeValues: { ':anchor': anchor },
    }),
  );
}

/** Marks it revoked and appends it to the revocation list, in one transaction; false when it already was. */
export async function revokeAttestation(a: AttestationRecord, revokedAt: string): Promise<boolean> {
  try {
    const failed = await transactWrite([
      {
        Update: {
          TableName: tableName,
          Key: key(a.id),
          UpdateExpression: 'SET revoked = :true, revokedAt = :at',
          ConditionExpression: 'attribute_exists(pk) AND revoked = :false',
          ExpressionAttributeValues: { ':true': true, ':false': false, ':at': revokedAt },
        },
      },
      { Put: { TableName: tableName, Item: { pk: REVOKED_PK, sk: `${revokedAt}#${a.id}`, id: a.id, hash: a.hash, revokedAt } } },
    ]);
    return failed < 0;
  } catch (e) {
    if (isConditionalFailure(e)) return false;
    throw e;
  }
}

/** The subject's attestations, newest first, a page at a time. */
export async function pageAttestations(subjectId: string, limit: number, cursor?: string) {
  const page = await queryPage({ pk: subjectPartition(subjectId), index: 'gsi1', newestFirst: true, limit, cursor });
  return { attestations: page.items.map((i) => attestationDecoder.decode(i)), nextCursor: page.nextCursor };
}

/** The revocation list in revocation order. */
export const listRevoked = (): Promise<RevokedEntry[]> => listPartition(REVOKED_PK, revokedDecoder);
