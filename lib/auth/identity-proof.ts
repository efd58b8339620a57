import { randomUUID, verify } from 'node:crypto';
import * as z from 'zod';
import { ed25519PublicKey } from './identity.ts';
import { identityProofMessage, NONCE_PATTERN } from '#lib/client/identity.ts';
import { clock } from '#lib/clock.ts';
import { claimNonce } from '#lib/data/identity-nonces.ts';
import { getUserByZkId, hasIdentity, ZK_ID_PATTERN } from '#lib/data/users.ts';
import { errors } from '#lib/errors.ts';
import { logger } from '#lib/log.ts';
import { recordProof } from '#lib/proofs/history.ts';
import { identityProofHash, uuidToFelt, zkIdToFelt } from '#lib/chains/chain-b/felts.ts';
import { proofRegistry } from '#lib/chains/chain-b/index.ts';
import { RegistryRevert } from '#lib/chains/chain-b/registry.ts';

/**
 * `POST /api/chainb/submit-proof`: a client proves, with its Ed25519 identity key, that it holds
 * the identity of a zkId; the server checks it and records it on chain B's proof registry,
 * paying the fee from its own account.
 *
 * Replay protection (POST /api/chainb/identity/prove, functions/routes.ts): the signed message binds zkId, nonce and
 * timestamp (`identityProofMessage`). The timestamp must be within ±5 minutes of the server's
 * clock; the nonce is claimed with a conditional put per zkId and kept (TTL) until well after the
 * timestamp could still be accepted, so a message is accepted at most once.
 */
export const TIMESTAMP_WINDOW_MS = 5 * 60 * 1000;
/** Nonces outlive the window: accepted up to timestamp + window, kept until timestamp + window + this. */
const NONCE_MARGIN_SECONDS = 5 * 60;

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const rawBytes = (n: number) =>
  z
    .string()
    .max(200)
    .regex(BASE64, 'must be base64')
    .refine((s) => Buffer.from(s, 'base64').length === n, `must decode to ${n} bytes`);

export const submitProofInput = z.object({
  zkId: z.string().regex(ZK_ID_PATTERN, 'must be did:zk: followed by 16 lower-case letters or digits'),
  publicKey: rawBytes(32),
  signature: rawBytes(64),
  nonce: z.string().regex(NONCE_PATTERN, 'must be 16–64 characters of base64url (A-Z a-z 0-9 _ -)'),
  timestamp: z.number().int('must be an integer (unix milliseconds)').nonnegative(),
});
export type SubmitProofInput = z.infer<typeof submitProofInput>;

export async function submitIdentityProof(input: SubmitProofInput) {
  const user = await getUserByZkId(input.zkId);
  const publicKey = Buffer.from(input.publicKey, 'base64');
  if (!user || !hasIdentity(user) || !Buffer.from(user.identityPublicKey, 'base64').equals(publicKey)) {
    throw errors.invalidCredentials('the public key is not the one registered for this zkId');
  }
  if (Math.abs(clock.nowMs() - input.timestamp) > TIMESTAMP_WINDOW_MS) {
    throw errors.invalidCredentials(`the proof's timestamp is more than ${TIMESTAMP_WINDOW_MS / 60_000} minutes from the server's time`);
  }
  const key = ed25519PublicKey(input.publicKey);
  const signature = Buffer.from(input.signature, 'base64');
  if (!key || !verify(null, identityProofMessage(input), key, signature)) throw errors.invalidCredentials('invalid signature');

  // One acceptance per (zkId, nonce): a replay, or the same proof sent twice at once, loses here.
  const keepUntil = Math.ceil((input.timestamp + TIMESTAMP_WINDOW_MS) / 1000) + NONCE_MARGIN_SECONDS;
  if (!(await claimNonce(input.zkId, input.nonce, keepUntil))) throw errors.proofExists();

  const proofId = randomUUID();
  const registry = proofRegistry();
  const args = {
    proofId: uuidToFelt(proofId),
    zkId: zkIdToFelt(input.zkId),
    proofHash: identityProofHash({ proofId, zkId: input.zkId, publicKey, nonce: input.nonce, timestamp: input.timestamp, signature }),
  };
  let txHash: string;
  try {
    ({ txHash } = await registry.storeProof(args));
  } catch (e) {
    if (e instanceof RegistryRevert && e.reason === 'proof already exists') throw errors.proofExists();
    logger.error('store_proof failed', { error: e as Error });
    throw errors.chainBError('chain B could not store the proof');
  }
  await recordProof(user.id, {
    type: 'identity',
    action: 'accepted',
    result: 'valid',
    statement: 'Ed25519 identity proof for a zkId, stored on chain B',
    links: { txHash, proofId, contractAddress: registry.address, zkId: input.zkId },
  });
  return { txHash, contractAddress: registry.address, proofId };
}

/** `get_proof` by the proof's uuid, for `GET /api/chainb/proofs/:proofId`. */
export async function readProof(proofId: string) {
  const proof = await proofRegistry().getProof(uuidToFelt(proofId));
  if (!proof) throw errors.notFound('no such proof on chain B');
  return { proofId, contractAddress: proofRegistry().address, proof };
}

// The answers (before the flat envelope), for the OpenAPI document.
export const submitProofResponse = z.object({ txHash: z.string(), contractAddress: z.string(), proofId: z.uuid() });
export const readProofResponse = z.object({
  proofId: z.uuid(),
  contractAddress: z.string(),
  proof: z.object({ proof_id: z.string(), proof_hash: z.string(), zk_id: z.string(), owner: z.string(), timestamp: z.number().int() }),
});
