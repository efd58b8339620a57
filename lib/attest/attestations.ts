import { randomUUID } from 'node:crypto';
import * as z from 'zod';
import { clientCursorPage } from '#lib/http/client-cursor.ts';
import { queryInteger } from '#lib/http/validation.ts';
import { clock } from '#lib/clock.ts';
import {
  getAttestation,
  insertAttestation,
  listRevoked,
  pageAttestations,
  revokeAttestation,
  setAnchor,
  type AttestationRecord,
} from '#lib/data/attestations.ts';
import { errors } from '#lib/errors.ts';
import { recordGroth16 } from '#lib/proofs/history.ts';
import { proofSchema, verifyProof } from '#lib/zk/groth16.ts';
import { anchorAttestation } from './anchor.ts';
import { attestConfig } from './config.ts';
import { DECIMAL_RULE, isCanonicalDecimal, isCanonicalTime, isCanonicalUuid, nonCanonicalReasons, UUID_RULE } from './canonical.ts';
import { attestationHash, revocationMessage, scopeSignal } from './fields.ts';
import { requireRecentRoot } from './groups.ts';
import { issuerInfo, issuerSign, issuerVerify } from './issuer.ts';
import { poseidonHash2, rootOf, TREE_DEPTH } from '#lib/zk/merkle.ts';
import { checkClaimsShape, checkSignals, claimFields, describeSchema, getSchema, SCHEMAS } from './schemas.ts';

/**
 * `/api/attest`: a subject proves a claim with a Groth16 proof of a schema's circuit; the service
 * checks every schema-bound signal, then the proof against the pinned verification key, takes
 * the nullifier atomically (one attestation per subject and scope), and signs the attestation's
 * Poseidon hash with the issuer's EdDSA key. Anyone can verify an attestation later.
 */

// ---- schemas of the requests and answers ----------------------------------------------------

const decimal = z.string().regex(/^[0-9]{1,78}$/, 'must be a decimal string');
const point = z.object({ x: decimal, y: decimal });
export const scopeField = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[\x20-\x7e]+$/, 'printable ASCII');

export const issueInput = z.object({
  schema: z.string().min(1).max(64),
  proof: proofSchema,
  publicSignals: z.array(decimal).min(1).max(16),
  scope: scopeField.default('default'),
  group: z.string().refine(isCanonicalUuid, `must be a group id, ${UUID_RULE}`).optional(),
  anchor: z.boolean().default(false),
});
export type IssueInput = z.infer<typeof issueInput>;

export const attestationSchema = z.object({
  id: z.uuid(),
  schema: z.string().max(64),
  claims: z.record(z.string().max(32), z.string().max(80)),
  nullifier: decimal,
  scope: scopeField,
  issuedAt: z.iso.datetime(),
  expiresAt: z.iso.datetime(),
  issuer: z.object({ algorithm: z.literal('eddsa-poseidon-babyjubjub'), publicKey: point, keyId: z.string().max(64) }),
  signature: z.object({ R8: point, S: decimal }),
  hash: decimal,
  anchor: z.object({ txHash: z.string().max(100), contractAddress: z.string().max(100) }).optional(),
});
export type Attestation = z.infer<typeof attestationSchema>;

export const issueResponse = z.object({
  attestation: attestationSchema,
  anchor: z
    .union([z.object({ txHash: z.string(), contractAddress: z.string() }), z.object({ error: z.literal('CHAINB_ERROR'), message: z.string() })])
    .optional(),
});
export const attestationIdParams = z.object({ id: z.uuid('must be an attestation id') });
export const listQuery = z.object({ limit: queryInteger(1, 100).default(20), cursor: z.string().max(1000).optional() });
const mine = attestationSchema.extend({ revoked: z.boolean(), revokedAt: z.string().optional() });
export const listResponse = z.object({ attestations: z.array(mine), nextCursor: z.string().nullable() });
export const getResponse = z.object({ attestation: mine });
/**
 * An attestation as presented for verification: the shape only, every value a string. Whether each
 * value is in its one canonical form is part of the answer (`valid: false` and a reason), not a 400.
 */
const text = z.string().max(1000);
const presentedPoint = z.object({ x: text, y: text });
export const presentedAttestation = z.object({
  id: text,
  schema: text,
  claims: z.record(z.string().max(32), text),
  nullifier: text,
  scope: text,
  issuedAt: text,
  expiresAt: text,
  issuer: z.object({ algorithm: text, publicKey: presentedPoint, keyId: text }),
  signature: z.object({ R8: presentedPoint, S: text }),
  hash: text,
  anchor: z.object({ txHash: text, contractAddress: text }).optional(),
});
export type PresentedAttestation = z.infer<typeof presentedAttestation>;
export const verifyInput = z.object({ attestation: presentedAttestation });
export const verifyResponse = z.object({ valid: z.boolean(), revoked: z.boolean(), expired: z.boolean(), reasons: z.array(z.string()) });
// The issuer's revocation signature is verified: its values too are taken in their canonical form only.
const canonicalDecimal = z.string().refine(isCanonicalDecimal, `must be ${DECIMAL_RULE}`);
export const revokeInput = z
  .object({ issuerSignature: z.object({ R8: z.object({ x: canonicalDecimal, y: canonicalDecimal }), S: canonicalDecimal }).optional() })
  .default({});
export const revokeResponse = z.object({ id: z.string(), revoked: z.literal(true), revokedAt: z.string() });
export const revocationsResponse = z.object({
  root: z.string(),
  size: z.number().int(),
  depth: z.number().int(),
  revoked: z.array(z.object({ id: z.string(), hash: z.string(), revokedAt: z.string() })),
});
export const issuerResponse = z.object({ algorithm: z.string(), publicKey: point, keyId: z.string(), signedMessage: z.string() });
export const schemasResponse = z.object({ schemas: z.array(z.object({ id: z.string(), circuit: z.string(), vkHash: z.string() }).loose()) });

// ---- views ----------------------------------------------------------------------------------

/** The signed attestation as handed out (no subject id: an attestation does not name its user). */
const publicView = (a: AttestationRecord): Attestation => ({
  id: a.id,
  schema: a.schema,
  claims: a.claims,
  nullifier: a.nullifier,
  scope: a.scope,
  issuedAt: a.issuedAt,
  expiresAt: a.expiresAt,
  issuer: a.issuer,
  signature: a.signature,
  hash: a.hash,
  ...(a.anchor ? { anchor: a.anchor } : {}),
});
const ownerView = (a: AttestationRecord) => ({ ...publicView(a), revoked: a.revoked, ...(a.revokedAt ? { revokedAt: a.revokedAt } : {}) });

const seconds = (iso: string) => Math.floor(Date.parse(iso) / 1000);
const isoOf = (s: number) => new Date(s * 1000).toISOString();

// ---- operations -----------------------------------------------------------------------------

export const listSchemas = () => ({ schemas: SCHEMAS.map(describeSchema) });

export const issuer = async () => ({
  ...(await issuerInfo()),
  signedMessage:
    'Poseidon(fieldOf("shroud-attestation:v1"), uuid(id), fieldOf("schema:" + schema), Poseidon(claims in schema order), nullifier, scopeSignal, issuedAt s, expiresAt s); EdDSA-Poseidon on Baby JubJub (circomlibjs signPoseidon)',
});

/** Milliseconds spent verifying Groth16 proofs in this process (the attest bench reads it). */
export const verificationTime = { ms: 0 };

export async function issue(subjectId: string, input: IssueInput) {
  const schema = getSchema(input.schema);
  if (schema.needsGroup !== (input.group !== undefined)) {
    throw errors.invalidInput(schema.needsGroup ? `group: the schema ${schema.id} needs a group id` : `group: the schema ${schema.id} takes no group`);
  }
  // 1. Every schema-bound signal, before any expensive work: 400 SCHEMA_MISMATCH.
  const checked = checkSignals(schema, input.publicSignals, input.scope, input.group);
  if (checked.root) await requireRecentRoot(input.group!, checked.root);
  // 2. The proof against the schema's pinned key: 401 INVALID_PROOF.
  const t0 = performance.now();
  const valid = await verifyProof(schema.circuit, input.proof, input.publicSignals);
  verificationTime.ms += performance.now() - t0;
  const proofEvent = { type: 'attestation' as const, circuit: schema.circuit, proof: input.proof, publicSignals: input.publicSignals };
  if (!valid) {
    await recordGroth16(subjectId, { ...proofEvent, action: 'verified', valid: false });
    throw errors.invalidProof("the proof does not verify against the schema's verification key");
  }
  // 3. Sign, then take the nullifier and write the attestation in one transaction: 409 for a second one.
  const id = randomUUID();
  const issuedAtSeconds = clock.nowSeconds();
  const expiresAtSeconds = issuedAtSeconds + attestConfig.ATTEST_VALIDITY_DAYS * 86_400;
  const hash = await attestationHash({
    id,
    schema: schema.id,
    claimFields: claimFields(schema, checked.claims),
    nullifier: BigInt(checked.nullifier),
    scopeSignal: checked.scopeSignal,
    issuedAtSeconds,
    expiresAtSeconds,
  });
  const record: AttestationRecord = {
    id,
    subjectId,
    schema: schema.id,
    claims: checked.claims,
    nullifier: checked.nullifier,
    scope: input.scope,
    scopeSignal: checked.scopeSignal.toString(),
    issuedAt: isoOf(issuedAtSeconds),
    expiresAt: isoOf(expiresAtSeconds),
    issuer: await issuerInfo(),
    signature: await issuerSign(hash),
    hash: hash.toString(),
    revoked: false,
  };
  if (!(await insertAttestation(record))) throw errors.alreadyAttested();

  let anchor: Awaited<ReturnType<typeof anchorAttestation>> | undefined;
  if (input.anchor) {
    anchor = await anchorAttestation(id, hash);
    if ('txHash' in anchor) {
      await setAnchor(id, anchor);
      record.anchor = anchor;
    }
  }
  await recordGroth16(subjectId, {
    ...proofEvent,
    action: 'accepted',
    valid: true,
    links: { attestationId: id, ...(record.anchor ? { txHash: record.anchor.txHash, contractAddress: record.anchor.contractAddress } : {}) },
    expiresAt: record.expiresAt,
  });
  return { attestation: publicView(record), ...(anchor ? { anchor } : {}) };
}

export async function listMine(subjectId: string, q: z.infer<typeof listQuery>) {
  const page = await clientCursorPage(pageAttestations(subjectId, q.limit, q.cursor));
  return { attestations: page.attestations.map(ownerView), nextCursor: page.nextCursor };
}

/** The subject's attestation; another user's answers exactly as an unknown one. */
export async function getMine(subjectId: string, id: string) {
  const a = await getAttestation(id);
  if (!a || a.subjectId !== subjectId) throw errors.notFound('no such attestation');
  return { attestation: ownerView(a) };
}

/**
 * Revokes: the subject (signed in), or the issuer — whoever holds the issuer key signs
 * revocationMessage(id) and sends it as `issuerSignature`, with or without a session. Anyone
 * else: 404, as for an unknown id. Revoking twice answers the first revocation.
 */
export async function revoke(userId: string | undefined, id: string, input: z.infer<typeof revokeInput>) {
  const a = await getAttestation(id);
  if (!a) throw errors.notFound('no such attestation');
  const bySubject = userId !== undefined && a.subjectId === userId;
  const byIssuer = !bySubject && input.issuerSignature !== undefined && (await issuerVerify(await revocationMessage(id), input.issuerSignature));
  if (!bySubject && !byIssuer) throw errors.notFound('no such attestation');
  const revokedAt = clock.now().toISOString();
  if (await revokeAttestation(a, revokedAt)) return { id, revoked: true as const, revokedAt };
  const now = await getAttestation(id);
  return { id, revoked: true as const, revokedAt: now?.revokedAt ?? revokedAt };
}

/** The revocation list with its root: a depth-20 Poseidon tree over the revoked attestations' hashes, in revocation order. */
export async function revocations() {
  const list = await listRevoked();
  const root = rootOf(
    await poseidonHash2(),
    list.map((r) => BigInt(r.hash)),
  );
  return { root: root.toString(), size: list.length, depth: TREE_DEPTH, revoked: list };
}

/**
 * Public verification: every value must be in its canonical form (lib/attest/canonical.ts), the hash
 * is recomputed from the fields, the signature checked against the issuer key, and the attestation
 * looked up for revocation and compared with what was issued under its id. `valid` is true only
 * when the signature is the issuer's over exactly these fields written exactly as issued, the
 * attestation is known, not revoked and not expired; `reasons` says what failed.
 */
export async function verifyAttestation(a: PresentedAttestation) {
  const reasons = nonCanonicalReasons(a);
  const canonical = reasons.length === 0;
  const schema = SCHEMAS.find((s) => s.id === a.schema);
  const us = await issuerInfo();
  let signatureOk = false;
  if (!schema) reasons.push('unknown schema');
  else if (!checkClaimsShape(schema, a.claims)) reasons.push('claims do not match the schema');
  else if (canonical) {
    const hash = await attestationHash({
      id: a.id,
      schema: a.schema,
      claimFields: claimFields(schema, a.claims),
      nullifier: BigInt(a.nullifier),
      scopeSignal: scopeSignal(a.schema, a.scope),
      issuedAtSeconds: seconds(a.issuedAt),
      expiresAtSeconds: seconds(a.expiresAt),
    });
    if (hash.toString() !== a.hash) reasons.push('hash does not match the fields');
    if (a.issuer.publicKey.x !== us.publicKey.x || a.issuer.publicKey.y !== us.publicKey.y) reasons.push('not signed by this issuer');
    else if (!(await issuerVerify(hash, a.signature))) reasons.push('signature does not verify');
    else signatureOk = true;
  }
  // The key id is not signed: it must be this issuer's, as written in every attestation it issues.
  if (a.issuer.keyId !== us.keyId) reasons.push("issuer.keyId is not this issuer's key id");
  const stored = isCanonicalUuid(a.id) ? await getAttestation(a.id) : undefined;
  if (!stored) reasons.push('unknown attestation');
  else {
    if (signatureOk && stored.hash !== a.hash) reasons.push('not the attestation issued under this id');
    // The anchor is not signed either: one that is presented must be the one recorded.
    if (a.anchor && (a.anchor.txHash !== stored.anchor?.txHash || a.anchor.contractAddress !== stored.anchor?.contractAddress)) {
      reasons.push('anchor is not the one recorded for this attestation');
    }
  }
  const revoked = stored?.revoked ?? false;
  if (revoked) reasons.push('revoked');
  const expired = isCanonicalTime(a.expiresAt) && clock.nowSeconds() >= seconds(a.expiresAt);
  if (expired) reasons.push('expired');
  return { valid: reasons.length === 0, revoked, expired, reasons };
}
