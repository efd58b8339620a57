import * as z from 'zod';
import { clientCursorPage } from '#lib/http/client-cursor.ts';
import { queryInteger } from '#lib/http/validation.ts';
import { clock } from '#lib/clock.ts';
import { PROOF_ID_PATTERN, PROOF_TYPES, proofHistoryEntrySchema } from '#lib/data/proof-history.ts';
import { errors } from '#lib/errors.ts';
import { getCircuit } from '#lib/zk/circuits.ts';
import { verifyProof } from '#lib/zk/groth16.ts';
import { proofRegistry } from '#lib/chains/chain-b/index.ts';
import { uuidToFelt } from '#lib/chains/chain-b/felts.ts';
import { getProof, listProofs, pageProofs, type ProofRecord } from './history.ts';

/**
 * `/api/proofs`: the signed-in user's proof history — list (filters, cursor pagination, newest
 * first), one record, re-verification against the pinned key, NDJSON export, stats, delete.
 */

// ---- input schemas --------------------------------------------------------------------------

/** The largest epoch ms a record id can hold (13 digits). */
const MAX_MS = 9_999_999_999_999;

/** A time as ISO 8601 (date or date-time) or epoch milliseconds → epoch ms. */
const isoOrMs = z
  .union([z.string().regex(/^[0-9]{1,13}$/), z.iso.datetime({ offset: true }), z.iso.date()], {
    error: 'must be an ISO 8601 time or epoch milliseconds',
  })
  .transform((s) => (/^[0-9]+$/.test(s) ? Number(s) : Date.parse(s)))
  .refine((ms) => Number.isFinite(ms) && ms >= 0 && ms <= MAX_MS, 'must be between 1970 and the year 2286');

export const listProofsQuery = z.object({
  type: z.enum(PROOF_TYPES).optional(),
  from: isoOrMs.optional(),
  to: isoOrMs.optional(),
  limit: queryInteger(1, 100).default(20),
  cursor: z.string().max(1000).optional(),
});
export const exportProofsQuery = listProofsQuery.omit({ limit: true, cursor: true });
export const proofIdParams = z.object({ id: z.string().regex(PROOF_ID_PATTERN, 'must be a proof record id') });

// ---- response schemas -----------------------------------------------------------------------

export const proofRecordSchema = proofHistoryEntrySchema.extend({
  proof: z
    .object({ pi_a: z.array(z.string()), pi_b: z.array(z.array(z.string())), pi_c: z.array(z.string()) })
    .loose()
    .optional(),
});
export const proofListResponse = z.object({ proofs: z.array(proofRecordSchema), nextCursor: z.string().nullable() });
export const proofResponse = z.object({ proof: proofRecordSchema });
export const proofVerifyResponse = z.object({ valid: z.boolean(), verifiedAt: z.string(), reason: z.string().optional() });
export const proofStatsResponse = z.object({
  total: z.number().int(),
  byType: z.record(z.string(), z.number().int()),
  byResult: z.record(z.string(), z.number().int()),
  byTypeAndResult: z.record(z.string(), z.record(z.string(), z.number().int())),
});

// ---- operations -----------------------------------------------------------------------------

export type ListQuery = z.infer<typeof listProofsQuery>;

export async function listPage(userId: string, q: ListQuery) {
  if (q.from !== undefined && q.to !== undefined && q.from > q.to) throw errors.invalidInput('query: from must not be after to');
  const page = await clientCursorPage(pageProofs(userId, { type: q.type, fromMs: q.from, toMs: q.to, limit: q.limit, cursor: q.cursor }));
  return { proofs: page.entries, nextCursor: page.nextCursor };
}

/** At most this many records per export: the answer must fit in one Lambda response (6 MB). */
export const EXPORT_MAX_RECORDS = 5_000;

/** The records matching the filters, one JSON object a line, newest first. */
export async function exportNdjson(userId: string, q: z.infer<typeof exportProofsQuery>): Promise<{ body: Buffer; count: number; truncated: boolean }> {
  const lines: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await listPage(userId, { ...q, limit: 100, cursor });
    for (const p of page.proofs) lines.push(JSON.stringify(p));
    cursor = page.nextCursor ?? undefined;
  } while (cursor && lines.length < EXPORT_MAX_RECORDS);
  const kept = lines.slice(0, EXPORT_MAX_RECORDS);
  return { body: Buffer.from(kept.length ? `${kept.join('\n')}\n` : ''), count: kept.length, truncated: Boolean(cursor) || lines.length > EXPORT_MAX_RECORDS };
}

export async function stats(userId: string) {
  const all = await listProofs(userId);
  const byType: Record<string, number> = {};
  const byResult: Record<string, number> = {};
  const byTypeAndResult: Record<string, Record<string, number>> = {};
  for (const p of all) {
    byType[p.type] = (byType[p.type] ?? 0) + 1;
    byResult[p.result] = (byResult[p.result] ?? 0) + 1;
    const t = (byTypeAndResult[p.type] ??= {});
    t[p.result] = (t[p.result] ?? 0) + 1;
  }
  return { total: all.length, byType, byResult, byTypeAndResult };
}

/**
 * Checks a recorded proof again. Groth16 records (toolkit, storage, attestations): the circuit's
 * verification key must still be the one the record pinned (its sha256), and the stored proof
 * must verify against it with the stored public signals. Identity proofs: chain B's registry
 * must still hold the proof id. STARK session proofs keep no proof here (they are checked by
 * `POST /api/zkauth/verify`): 400.
 */
export async function reverify(userId: string, id: string): Promise<{ valid: boolean; verifiedAt: string; reason?: string }> {
  const record = await getProof(userId, id);
  const verifiedAt = () => clock.now().toISOString();
  if (record.circuit && record.proof && record.publicSignals) return { ...(await reverifyGroth16(record)), verifiedAt: verifiedAt() };
  if (record.type === 'identity' && record.links.proofId) {
    const held = await proofRegistry().verifyProofExists(uuidToFelt(record.links.proofId));
    return { valid: held, verifiedAt: verifiedAt(), ...(held ? {} : { reason: 'chain B no longer holds the proof' }) };
  }
  throw errors.invalidInput('this record keeps no proof to re-verify (STARK session proofs are checked by POST /api/zkauth/verify)');
}

async function reverifyGroth16(record: ProofRecord): Promise<{ valid: boolean; reason?: string }> {
  let pinned: string;
  try {
    pinned = getCircuit(record.circuit!).artifacts.vkey.sha256;
  } catch {
    return { valid: false, reason: `the circuit ${record.circuit} is no longer served` };
  }
  if (pinned !== record.vkHash) return { valid: false, reason: 'the verification key changed since the proof was recorded' };
  const ok = await verifyProof(record.circuit!, record.proof, record.publicSignals);
  return ok ? { valid: true } : { valid: false, reason: 'the proof does not verify' };
}
