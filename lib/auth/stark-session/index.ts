import { randomUUID } from 'node:crypto';
import * as z from 'zod';
import { AIR_VERSION, decodeKeyHash } from '#lib/stark/index.ts';
import { clock } from '#lib/clock.ts';
import { loadSession, type Session } from '#lib/data/sessions.ts';
import type { StarkProofRecord } from '#lib/data/stark-proofs.ts';
import { errors } from '#lib/errors.ts';
import { onChain, registry, storeOnChain } from './chain.ts';
import { currentProof, isExpired, iso, recordIssued } from './history.ts';
import { bindClientKey, clientBindingId, custodyOf, keyHashOf, sessionKey } from './keys.ts';
import { acceptClientProof, proofHoldsFor, proveSessionKey, type SessionProof } from './proving.ts';

/**
 * The STARK proof attached to a session (`/api/zkauth/prove|verify|refresh|logout`), by concern:
 * key material (keys.ts), proving and checking (proving.ts), chain B's registry (chain.ts), the
 * proofs' records over time (history.ts). This file is the flows the routes call.
 *
 * A proof binds the session key's hash to the session and an expiry 7 days ahead (the proof may
 * outlive the session; without a session nobody can use it). Two modes (keys.ts): the client
 * holds the key and sends its proof (`stark_proof`, with `keyHash` the first time), which the
 * server verifies against public inputs it derives itself; or, for clients that send no proof,
 * the server holds the key and proves. The custody is a public input of every proof.
 * Revocation (logout) and supersession (refresh) live in our records; verify answers
 * `valid: false` for a revoked proof whatever the chain says.
 */
export const PROOF_LIFETIME_SECONDS = 7 * 24 * 3600;

export { AIR_VERSION };
export { publicKeyHex, sessionKey, clientBindingId } from './keys.ts';
export { logoutSession } from './logout.ts';

/**
 * The optional JSON body of prove and refresh: a client-held key's proof (lowercase hex, at most
 * 400,000 digits; a proof is about 88,000) and, with the session's first one, the key's hash.
 * No body (or no `stark_proof`): the server-held mode.
 */
export const clientProofBody = z
  .object({
    stark_proof: z
      .string()
      .max(400_000)
      .regex(/^(0x)?([0-9a-f]{2})+$/, 'lowercase hex')
      .optional(),
    keyHash: z
      .string()
      .regex(/^0x[0-9a-f]{64}$/, '0x + 64 lowercase hex digits')
      .optional(),
  })
  .strict()
  .optional();
export type ClientProofInput = z.infer<typeof clientProofBody>;
export { starkProofHash, useProofRegistry } from './chain.ts';
export { currentProofId, proofById, type ProofRecord } from './history.ts';

/** The session's next proof: the client's (verified here) when it sent one, else the server-held key's. */
async function nextProof(cookieId: string, session: Session, previous: StarkProofRecord | undefined, input: ClientProofInput | undefined) {
  // Strictly later than the proof it replaces, even within the same second.
  const earliest = (previous?.expiresAt ?? 0) + 1;
  if (!input?.stark_proof) {
    const { sk, keyHash } = await sessionKey(cookieId, session);
    const expiresAt = Math.max(clock.nowSeconds() + PROOF_LIFETIME_SECONDS, earliest);
    return { proof: proveSessionKey(sk, keyHash, session.hash, expiresAt), expiresAt, bind: undefined };
  }
  const { key } = await currentProof(session.hash);
  const bound = key && custodyOf(key) === 'client' ? keyHashOf(key) : undefined;
  const offered = input.keyHash === undefined ? undefined : decodeKeyHash(input.keyHash);
  if (offered === null) throw errors.invalidInput('keyHash: must be 0x + 64 lowercase hex digits, 4 canonical felts');
  if (bound && offered && offered.some((x, i) => x !== bound[i])) throw errors.conflict('the session is bound to another client key');
  const keyHash = bound ?? offered;
  if (!keyHash) throw errors.invalidInput("keyHash: required with the session's first client proof");
  const { expiresAt, ...proof }: SessionProof & { expiresAt: number } = acceptClientProof(
    input.stark_proof,
    keyHash,
    clientBindingId(session.hash),
    clock.nowSeconds(),
  );
  if (expiresAt < earliest) {
    throw errors.conflict('the session already has a proof until this expiry: prove for the next hour (clientProofExpiry(now + 3600))');
  }
  return { proof, expiresAt, bind: bound ? undefined : keyHash };
}

async function issue(
  cookieId: string,
  session: Session,
  previous: StarkProofRecord | undefined,
  input: ClientProofInput | undefined,
): Promise<StarkProofRecord> {
  const { proof, expiresAt, bind } = await nextProof(cookieId, session, previous, input);
  const proofId = randomUUID();
  const { txHash, proofHash, contract } = await storeOnChain({ proofId, userId: session.userId, ...proof, expiresAt });
  // The first client proof binds the session to its key, only once the proof has verified.
  if (bind) await bindClientKey(session, bind);
  const record: StarkProofRecord = {
    proofId,
    userId: session.userId,
    sessionHash: session.hash,
    ...proof,
    proofHash,
    expiresAt,
    txHash,
    contract,
    revoked: false,
    createdAt: clock.now().toISOString(),
  };
  await recordIssued(record, previous);
  return record;
}

/** `POST /api/zkauth/prove`: a new proof for the session (replacing its current one, if any). */
export async function prove(cookieId: string, session: Session, input?: ClientProofInput) {
  const { proof: current } = await currentProof(session.hash);
  const record = await issue(cookieId, session, current, input);
  return {
    proof: { stark_proof: record.starkProof, public_inputs: record.publicInputs, cairo_version: record.airVersion },
    // issue() refuses a proof that does not verify.
    verified: true,
    txHash: record.txHash,
    expiresAt: iso(record.expiresAt),
  };
}

/** `POST /api/zkauth/refresh`: only while the current proof is valid (PROOF_EXPIRED after). */
export async function refresh(cookieId: string, session: Session, input?: ClientProofInput) {
  const { proof: current } = await currentProof(session.hash);
  if (!current) throw errors.notFound('the session has no proof to refresh; POST /api/zkauth/prove first');
  if (current.revoked) throw errors.conflict('the session proof was revoked');
  if (isExpired(current)) throw errors.proofExpired();
  const record = await issue(cookieId, session, current, input);
  return { proof: { stark_proof: record.starkProof, public_inputs: record.publicInputs }, txHash: record.txHash, expiresAt: iso(record.expiresAt) };
}

/** `POST /api/zkauth/verify`: the session's current proof, checked again, and its presence on chain B. */
export async function verify(session: Session) {
  const { key, proof: p } = await currentProof(session.hash);
  const contract = registry().address;
  if (!key || !p) return { valid: false, proofExpiry: null, starknet: { contract, verified: false } };
  if (p.revoked) return { valid: false, proofExpiry: iso(p.expiresAt), starknet: { contract, verified: false } };
  if (isExpired(p)) throw errors.proofExpired();
  const chain = await onChain(p);
  return {
    valid: chain && proofHoldsFor(p, keyHashOf(key), session.hash, custodyOf(key)),
    proofExpiry: iso(p.expiresAt),
    starknet: { contract: p.contract, verified: chain },
  };
}

/**
 * The session of a verify or refresh: a live one, or the error that fits. An expired session
 * whose proof has expired as well answers PROOF_EXPIRED (the proof is what the caller asked
 * about); otherwise SESSION_EXPIRED, and without a session a plain 401.
 */
export async function sessionForProof(state: 'none' | 'expired' | 'active', session: Session | null, cookieId: string | undefined): Promise<Session> {
  if (state === 'active' && session) return session;
  if (state === 'expired' && cookieId) {
    const found = await loadSession(cookieId);
    if (found.state === 'expired') {
      const { proof: p } = await currentProof(found.session.hash);
      if (p && !p.revoked && isExpired(p)) throw errors.proofExpired();
    }
    throw errors.sessionExpired();
  }
  throw errors.unauthenticated();
}

/**
 * The `starknet` block, `publicKey` and `sessionBinding` (the id a client-held key's proofs bind,
 * see keys.ts) of the Auth status; a chain outage reads as unverified.
 */
export async function proofStatus(session: Session) {
  const { key, proof: p } = await currentProof(session.hash);
  let verified = false;
  if (p && !p.revoked && !isExpired(p)) {
    verified = await onChain(p).catch(() => false);
  }
  return {
    publicKey: key?.publicKey ?? null,
    sessionBinding: clientBindingId(session.hash),
    starknet: { verified, contract: p?.contract ?? registry().address, proofExpiry: p ? iso(p.expiresAt) : null },
  };
}

// The answers (before the `{success, data}` envelope), for the OpenAPI document.
const hexFelt = z.string().regex(/^0x[0-9a-f]{16}$/);
const starkProof = z.object({ stark_proof: z.string(), public_inputs: z.array(hexFelt) });
export const proveResponse = z.object({
  proof: starkProof.extend({ cairo_version: z.string() }),
  verified: z.boolean(),
  txHash: z.string(),
  expiresAt: z.iso.datetime(),
});
export const refreshResponse = z.object({ proof: starkProof, txHash: z.string(), expiresAt: z.iso.datetime() });
export const verifyResponse = z.object({
  valid: z.boolean(),
  proofExpiry: z.iso.datetime().nullable(),
  starknet: z.object({ contract: z.string(), verified: z.boolean() }),
});
export const proofStatusFields = {
  publicKey: z.string().nullable(),
  sessionBinding: z.string(),
  starknet: z.object({ verified: z.boolean(), contract: z.string(), proofExpiry: z.iso.datetime().nullable() }),
};
