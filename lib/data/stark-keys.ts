import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { db, tableName } from './client.ts';
import { decoder, deleteItem, isConditionalFailure, putNew, readItem } from './items.ts';

/**
 * The STARK key of a session (lib/auth/stark-session/keys.ts makes and seals it):
 *
 *   ZKSESSION#<sessionHash> / STARK   StarkKeyRecord
 *
 * TTL: the session's absolute expiry plus a week (the session is gone by then).
 */
const KEY_RECORD_MARGIN_SECONDS = 7 * 24 * 3600;

const starkKeySchema = z.object({
  /** Who holds the key: the client (only its hash is here) or the server (absent in older items: server). */
  custody: z.enum(['client', 'server']).optional(),
  /** Server-held keys only: the secret key, AES-256-GCM under a key derived from the session cookie (base64 iv ‖ tag ‖ ciphertext). */
  enc: z.string().optional(),
  /** The key's hash as `0x` + 64 hex digits (the status's `publicKey`). */
  publicKey: z.string(),
  /** The same hash as 4 felts, `0x` + 16 hex digits each. */
  keyHash: z.array(z.string()).length(4),
  /** The session's current proof (stark-proofs.ts), once it has one. */
  currentProofId: z.string().optional(),
});
export type StarkKeyRecord = z.infer<typeof starkKeySchema>;
export const starkKeyDecoder = decoder('STARK session key', starkKeySchema);

const key = (sessionHash: string) => ({ pk: `ZKSESSION#${sessionHash}`, sk: 'STARK' });

export const getStarkKey = (sessionHash: string): Promise<StarkKeyRecord | undefined> => readItem(key(sessionHash), starkKeyDecoder);

/** Stores a session's first key; false when the session has one already (a concurrent first use won). */
export async function putNewStarkKey(sessionHash: string, record: Omit<StarkKeyRecord, 'currentProofId'>, sessionAbsoluteExpiresAt: number): Promise<boolean> {
  try {
    await putNew({ ...key(sessionHash), ...record, ttl: sessionAbsoluteExpiresAt + KEY_RECORD_MARGIN_SECONDS });
    return true;
  } catch (e) {
    if (isConditionalFailure(e)) return false;
    throw e;
  }
}

/**
 * Binds the session to a client-held key (its hash only), keeping the current proof pointer and
 * dropping any server-held key. Refused (false) once the session is bound to another client key.
 */
export async function claimClientKey(sessionHash: string, publicKey: string, keyHash: string[], sessionAbsoluteExpiresAt: number): Promise<boolean> {
  try {
    await db.send(
      new UpdateCommand({
        TableName: tableName,
        Key: key(sessionHash),
        UpdateExpression: 'SET publicKey = :pk, keyHash = :kh, custody = :client, #ttl = if_not_exists(#ttl, :ttl) REMOVE enc',
        ConditionExpression: 'attribute_not_exists(custody) OR custody <> :client OR publicKey = :pk',
        ExpressionAttributeNames: { '#ttl': 'ttl' },
        ExpressionAttributeValues: { ':pk': publicKey, ':kh': keyHash, ':client': 'client', ':ttl': sessionAbsoluteExpiresAt + KEY_RECORD_MARGIN_SECONDS },
      }),
    );
    return true;
  } catch (e) {
    if (isConditionalFailure(e)) return false;
    throw e;
  }
}

/**
 * Moves the session's current proof from `previous` (none: the session had no proof) to `next`;
 * false when a concurrent prove or refresh moved it first.
 */
export async function moveCurrentProof(sessionHash: string, previous: string | undefined, next: string): Promise<boolean> {
  try {
    await db.send(
      new UpdateCommand({
        TableName: tableName,
        Key: key(sessionHash),
        UpdateExpression: 'SET currentProofId = :new',
        ConditionExpression: previous ? 'currentProofId = :old' : 'attribute_exists(pk) AND attribute_not_exists(currentProofId)',
        ExpressionAttributeValues: previous ? { ':new': next, ':old': previous } : { ':new': next },
      }),
    );
    return true;
  } catch (e) {
    if (isConditionalFailure(e)) return false;
    throw e;
  }
}

export const deleteStarkKey = (sessionHash: string): Promise<void> => deleteItem(key(sessionHash));
