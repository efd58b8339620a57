import { randomBytes } from 'node:crypto';
import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { clock } from '#lib/clock.ts';
import { queryPage, type Page } from './query-page.ts';
import { db, tableName } from './client.ts';
import { decoder, isConditionalFailure, putNew, queryPartition, readItem } from './items.ts';

/**
 * Each user's proof history (lib/proofs/history.ts is the one writer):
 *
 *   PROOFS#<userId> / P#<id>   ProofHistoryEntry, ttl = the retention setting (absent: kept)
 *
 * The id is `p<13-digit epoch ms><16 hex>`: sorting by sort key is sorting by time, so listing
 * newest first and the from/to filters are key conditions, and a record is read by (user, id) —
 * another user's id is simply not in the caller's partition. A record holds what the proof
 * showed publicly, never a private input.
 */
export const PROOF_TYPES = ['toolkit', 'storage', 'stark', 'identity', 'attestation'] as const;
const PROOF_ACTIONS = ['generated', 'verified', 'accepted'] as const;
const PROOF_RESULTS = ['valid', 'invalid'] as const;
export const PROOF_ID_PATTERN = /^p[0-9]{13}[0-9a-f]{16}$/;

const groth16ProofSchema = z.object({
  pi_a: z.array(z.string()),
  pi_b: z.array(z.array(z.string())),
  pi_c: z.array(z.string()),
  protocol: z.string().optional(),
  curve: z.string().optional(),
});

const proofLinksSchema = z.object({
  fileId: z.string().optional(),
  cid: z.string().optional(),
  attestationId: z.string().optional(),
  txHash: z.string().optional(),
  proofId: z.string().optional(),
  contractAddress: z.string().optional(),
  zkId: z.string().optional(),
});

/** The record as stored; lib/proofs/routes.ts answers with it (the proof loosened). */
export const proofHistoryEntrySchema = z.object({
  id: z.string(),
  type: z.enum(PROOF_TYPES),
  action: z.enum(PROOF_ACTIONS),
  result: z.enum(PROOF_RESULTS),
  /** Groth16: the circuit's name. */
  circuit: z.string().optional(),
  /** What the proof says, in words (STARK and identity proofs, which have no circuit here). */
  statement: z.string().optional(),
  /** sha256 (hex) of the verification key the proof was checked or made against. */
  vkHash: z.string().optional(),
  publicSignals: z.array(z.string()).optional(),
  /** The Groth16 proof itself (public: it reveals nothing the signals do not), kept to re-verify. */
  proof: groth16ProofSchema.optional(),
  links: proofLinksSchema,
  /** When the proof itself expires (STARK proofs, attestations), ISO 8601. */
  expiresAt: z.string().optional(),
  createdAt: z.string(),
});
export type ProofHistoryEntry = z.infer<typeof proofHistoryEntrySchema>;
export type ProofType = ProofHistoryEntry['type'];
export type NewProofHistoryEntry = Omit<ProofHistoryEntry, 'id' | 'createdAt'>;
export const proofHistoryDecoder = decoder('proof history entry', proofHistoryEntrySchema);

const partition = (userId: string) => `PROOFS#${userId}`;
const sortKey = (id: string) => `P#${id}`;
const idAt = (ms: number) => `p${String(ms).padStart(13, '0')}${randomBytes(8).toString('hex')}`;

/** Adds a record; `retentionSeconds` (> 0) sets its ttl. */
export async function addProofHistoryEntry(userId: string, fields: NewProofHistoryEntry, retentionSeconds: number): Promise<ProofHistoryEntry> {
  const now = clock.nowMs();
  const entry: ProofHistoryEntry = { ...fields, id: idAt(now), createdAt: new Date(now).toISOString() };
  const ttl = retentionSeconds > 0 ? Math.floor(now / 1000) + retentionSeconds : undefined;
  await putNew({ pk: partition(userId), sk: sortKey(entry.id), ...entry, ...(ttl ? { ttl } : {}) });
  return entry;
}

export const getProofHistoryEntry = (userId: string, id: string): Promise<ProofHistoryEntry | undefined> =>
  readItem({ pk: partition(userId), sk: sortKey(id) }, proofHistoryDecoder);

/** Deletes a live record; false when there was none. */
export async function deleteProofHistoryEntry(userId: string, id: string): Promise<boolean> {
  try {
    await db.send(
      new DeleteCommand({
        TableName: tableName,
        Key: { pk: partition(userId), sk: sortKey(id) },
        ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(#ttl) OR #ttl > :now)',
        ExpressionAttributeNames: { '#ttl': 'ttl' },
        ExpressionAttributeValues: { ':now': clock.nowSeconds() },
      }),
    );
    return true;
  } catch (e) {
    if (isConditionalFailure(e)) return false;
    throw e;
  }
}

export interface ProofHistoryQuery {
  type?: ProofType;
  /** Epoch ms, inclusive. */
  fromMs?: number;
  toMs?: number;
  limit: number;
  cursor?: string;
}

/** A page of the user's records, newest first. */
export async function pageProofHistory(userId: string, q: ProofHistoryQuery): Promise<{ entries: ProofHistoryEntry[]; nextCursor: string | null }> {
  const page: Page = await queryPage({
    pk: partition(userId),
    skFrom: sortKey(`p${String(q.fromMs ?? 0).padStart(13, '0')}`),
    // '~' sorts after every hex digit: the whole `to` millisecond is included.
    skTo: sortKey(`p${String(q.toMs ?? 9_999_999_999_999).padStart(13, '0')}~`),
    newestFirst: true,
    limit: q.limit,
    cursor: q.cursor,
    filter: q.type ? { expression: '#type = :type', names: { '#type': 'type' }, values: { ':type': q.type } } : undefined,
  });
  return { entries: page.items.map((i) => proofHistoryDecoder.decode(i)), nextCursor: page.nextCursor };
}

/** Every live record, newest first (stats; export pages through pageProofHistory). */
export async function listProofHistory(userId: string): Promise<ProofHistoryEntry[]> {
  return (await queryPartition(partition(userId), { prefix: 'P#', newestFirst: true })).map((i) => proofHistoryDecoder.decode(i));
}
