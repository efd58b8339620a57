import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes, randomUUID } from 'node:crypto';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { hash as starkHash, shortString } from 'starknet';
import { AIR_VERSION, encodePublicInputs, generateSecretKey, proveSession, publicKeyHash, verifySession } from '#lib/auth/stark/index.ts';
import { destroySession, loadSession, type Session } from '#lib/data/sessions.ts';
import { getUser } from '#lib/auth/users.ts';
import { proofRegistry, type ProofRegistry } from '#lib/chains/chain-b/index.ts';
import { toHex64, uuidToFelt, zkIdToFelt } from '#lib/chains/chain-b/felts.ts';
import { clock } from '#lib/clock.ts';
import { db, tableName } from '#lib/data/client.ts';
import { deleteItem, getItem, isConditionalFailure, putItem, putNew } from '#lib/data/items.ts';
import { errors } from '#lib/errors.ts';
import { logger } from '#lib/log.ts';
import { recordProof } from '#lib/proofs/history.ts';

/**
 * The STARK proof attached to a session (`/api/zkauth/prove|verify|refresh|logout`).
 *
 * Each session gets its own secret key (4 Goldilocks felts, ~256 bits), made at OAuth login (or
 * at the first prove of any other session). The server keeps it encrypted under a key derived
 * (HKDF-SHA-256) from the session cookie itself, which the table never stores: a copy of the
 * table does not reveal it, and only a request bearing the cookie can use it. It is never
 * returned or logged; its hash (Rescue, 4 felts) is the session's public key, shown as
 * `publicKey` (0x + 64 hex digits).
 *
 * A proof says "the holder of the key whose hash is `publicKey` is bound to session S until T":
 * S is the session's hash (the SHA-256 of the cookie, never the cookie), T = now + 7 days,
 * capped by nothing else (the proof may outlive the session; without a session nobody can use
 * it). Each proof gets a uuid; `store_proof(proof_id, proof_hash, zk_id)` records it on chain
 * B's registry, with `proof_hash` a Poseidon hash binding the proof bytes, its public inputs, the
 * proof id, the account and T, and `zk_id` the account's zkId as a short string or, for accounts
 * without one (OAuth legacy accounts), the user's uuid read as a 128-bit integer (the two ranges
 * cannot meet: a `did:zk:` short string is ≥ 2^176).
 *
 * Items:
 *   ZKSESSION#<sessionHash> / STARK   { enc, publicKey, keyHash, currentProofId }
 *   STARKPROOF#<proofId> / PROOF      { userId, sessionHash, proof, inputs, expiresAt, txHash, revoked }
 * Revocation (logout) and supersession (refresh) live here; the registry has no revoke entry, so
 * verify answers `valid: false` for a revoked proof whatever the chain says.
 */
export const PROOF_LIFETIME_SECONDS = 7 * 24 * 3600;
/** Proof records are kept this long past expiry, so expired and revoked proofs answer as such. */
const PROOF_RECORD_MARGIN_SECONDS = 30 * 24 * 3600;
const KEY_RECORD_MARGIN_SECONDS = 7 * 24 * 3600;

let registryOverride: ProofRegistry | undefined;
/** Tests (and only tests) swap chain B's registry, e.g. for one that fails. `undefined` restores it. */
export function useProofRegistry(r: ProofRegistry | undefined): void {
  registryOverride = r;
}
const registry = (): ProofRegistry => registryOverride ?? proofRegistry();

const keyItemKey = (sessionHash: string) => ({ pk: `ZKSESSION#${sessionHash}`, sk: 'STARK' });
const proofKey = (proofId: string) => ({ pk: `STARKPROOF#${proofId}`, sk: 'PROOF' });

interface KeyRecord {
  enc: string;
  publicKey: string;
  keyHash: string[];
  currentProofId?: string;
}

export interface ProofRecord {
  proofId: string;
  userId: string;
  sessionHash: string;
  starkProof: string;
  publicInputs: string[];
  airVersion: string;
  proofHash: string;
  expiresAt: number;
  txHash: string;
  contract: string;
  revoked: boolean;
  revokedReason?: 'logout' | 'superseded';
  createdAt: string;
}

// ---- the session key ----------------------------------------------------------------------

const wrappingKey = (cookieId: string, sessionHash: string) =>
  Buffer.from(hkdfSync('sha256', cookieId, 'shroud/stark-session-key/v1', sessionHash, 32));

function seal(sk: bigint[], cookieId: string, sessionHash: string): string {
  const plain = Buffer.alloc(8 * sk.length);
  sk.forEach((x, i) => plain.writeBigUInt64BE(x, 8 * i));
  const iv = randomBytes(12);
  const c = createCipheriv('aes-256-gcm', wrappingKey(cookieId, sessionHash), iv);
  c.setAAD(Buffer.from(sessionHash));
  const ct = Buffer.concat([c.update(plain), c.final()]);
  plain.fill(0);
  return Buffer.concat([iv, c.getAuthTag(), ct]).toString('base64');
}

function unseal(enc: string, cookieId: string, sessionHash: string): bigint[] {
  const raw = Buffer.from(enc, 'base64');
  const d = createDecipheriv('aes-256-gcm', wrappingKey(cookieId, sessionHash), raw.subarray(0, 12));
  d.setAAD(Buffer.from(sessionHash));
  d.setAuthTag(raw.subarray(12, 28));
  const plain = Buffer.concat([d.update(raw.subarray(28)), d.final()]);
  const out = Array.from({ length: plain.length / 8 }, (_, i) => plain.readBigUInt64BE(8 * i));
  plain.fill(0);
  return out;
}

const felt16 = (x: bigint) => x.toString(16).padStart(16, '0');
export const publicKeyHex = (keyHash: bigint[]) => `0x${keyHash.map(felt16).join('')}`;

/**
 * The session's key, made on first use. Two concurrent first uses race on a conditional put and
 * the loser takes the winner's key, so a session never has two.
 */
export async function sessionKey(cookieId: string, session: Session): Promise<{ sk: bigint[]; keyHash: bigint[]; record: KeyRecord }> {
  const existing = await getItem(keyItemKey(session.hash));
  if (existing) {
    const record = existing as unknown as KeyRecord;
    return { sk: unseal(record.enc, cookieId, session.hash), keyHash: record.keyHash.map((x) => BigInt(x)), record };
  }
  const sk = generateSecretKey();
  const keyHash = publicKeyHash(sk);
  const record: KeyRecord = { enc: seal(sk, cookieId, session.hash), publicKey: publicKeyHex(keyHash), keyHash: keyHash.map((x) => `0x${felt16(x)}`) };
  try {
    await putNew({ ...keyItemKey(session.hash), ...record, ttl: session.absoluteExpiresAt + KEY_RECORD_MARGIN_SECONDS });
    return { sk, keyHash, record };
  } catch (e) {
    if (!isConditionalFailure(e)) throw e;
    return sessionKey(cookieId, session);
  }
}

const keyRecord = async (sessionHash: string) => (await getItem(keyItemKey(sessionHash))) as unknown as KeyRecord | undefined;

async function proofRecord(proofId: string | undefined): Promise<ProofRecord | undefined> {
  if (!proofId) return undefined;
  return (await getItem(proofKey(proofId))) as unknown as ProofRecord | undefined;
}

const isExpired = (p: ProofRecord) => clock.nowSeconds() >= p.expiresAt;
const iso = (seconds: number) => new Date(seconds * 1000).toISOString();

// ---- prove / refresh -------------------------------------------------------------------------

const PROOF_HASH_TAG = BigInt(shortString.encodeShortString('shroud-stark-proof:v1'));

/** The felt stored on chain: Poseidon over the tag, proof id, zk_id, SHA-256(proof ‖ inputs) and expiry. */
export function starkProofHash(p: { proofId: string; zkFelt: bigint; starkProof: string; publicInputs: string[]; expiresAt: number }): bigint {
  const digest = createHash('sha256').update(Buffer.from(p.starkProof, 'hex')).update(p.publicInputs.join(',')).digest('hex');
  return BigInt(
    starkHash.computePoseidonHashOnElements([
      PROOF_HASH_TAG,
      uuidToFelt(p.proofId),
      p.zkFelt,
      BigInt(`0x${digest.slice(0, 32)}`),
      BigInt(`0x${digest.slice(32)}`),
      BigInt(p.expiresAt),
    ]),
  );
}

async function zkFeltOf(userId: string): Promise<bigint> {
  const user = await getUser(userId);
  return user?.zkId ? zkIdToFelt(user.zkId) : uuidToFelt(userId);
}

async function issue(cookieId: string, session: Session, previous: ProofRecord | undefined) {
  const { sk, keyHash } = await sessionKey(cookieId, session);
  // Strictly later than the proof it replaces, even within the same second.
  const expiresAt = Math.max(clock.nowSeconds() + PROOF_LIFETIME_SECONDS, (previous?.expiresAt ?? 0) + 1);
  let out: ReturnType<typeof proveSession>;
  try {
    out = proveSession(sk, { keyHash, sessionId: session.hash, expiresAt });
  } catch (e) {
    logger.error('STARK proving failed', { error: e as Error });
    throw errors.proofGenerationFailed();
  }
  const verified = verifySession(out.starkProof, out.publicInputs);
  if (!verified) throw errors.proofGenerationFailed('the generated proof did not verify');

  const proofId = randomUUID();
  const zkFelt = await zkFeltOf(session.userId);
  const proofHash = starkProofHash({ proofId, zkFelt, starkProof: out.starkProof, publicInputs: out.publicInputs, expiresAt });
  const reg = registry();
  let txHash: string;
  try {
    ({ txHash } = await reg.storeProof({ proofId: uuidToFelt(proofId), proofHash, zkId: zkFelt }));
  } catch (e) {
    logger.error('store_proof failed', { error: e as Error });
    throw errors.chainBError('chain B could not store the proof');
  }
  const record: ProofRecord = {
    proofId,
    userId: session.userId,
    sessionHash: session.hash,
    starkProof: out.starkProof,
    publicInputs: out.publicInputs,
    airVersion: out.airVersion,
    proofHash: toHex64(proofHash),
    expiresAt,
    txHash,
    contract: reg.address,
    revoked: false,
    createdAt: clock.now().toISOString(),
  };
  await putItem({ ...proofKey(proofId), ...record, ttl: expiresAt + PROOF_RECORD_MARGIN_SECONDS });
  // The session's current proof moves from `previous` to this one; a concurrent prove or refresh
  // that moved it first wins, and this proof is dropped.
  try {
    await db.send(
      new UpdateCommand({
        TableName: tableName,
        Key: keyItemKey(session.hash),
        UpdateExpression: 'SET currentProofId = :new',
        ConditionExpression: previous ? 'currentProofId = :old' : 'attribute_exists(pk) AND attribute_not_exists(currentProofId)',
        ExpressionAttributeValues: previous ? { ':new': proofId, ':old': previous.proofId } : { ':new': proofId },
      }),
    );
  } catch (e) {
    if (!isConditionalFailure(e)) throw e;
    await revoke(proofId, 'superseded');
    throw errors.conflict('another proof was issued for this session at the same time; retry');
  }
  if (previous) await revoke(previous.proofId, 'superseded');
  await recordProof(session.userId, { kind: 'stark', txHash, proofId, contractAddress: reg.address, expiresAt: iso(expiresAt) });
  return { record, verified };
}

/** Marks a proof revoked; true when this call revoked it (false when it already was, or is gone). */
async function revoke(proofId: string, reason: 'logout' | 'superseded'): Promise<boolean> {
  try {
    await db.send(
      new UpdateCommand({
        TableName: tableName,
        Key: proofKey(proofId),
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

/** `POST /api/zkauth/prove`: a new proof for the session (replacing its current one, if any). */
export async function prove(cookieId: string, session: Session) {
  const current = await proofRecord((await keyRecord(session.hash))?.currentProofId);
  const { record, verified } = await issue(cookieId, session, current);
  return {
    proof: { stark_proof: record.starkProof, public_inputs: record.publicInputs, cairo_version: record.airVersion },
    verified,
    txHash: record.txHash,
    expiresAt: iso(record.expiresAt),
  };
}

/** `POST /api/zkauth/refresh`: only while the current proof is valid (PROOF_EXPIRED after). */
export async function refresh(cookieId: string, session: Session) {
  const current = await proofRecord((await keyRecord(session.hash))?.currentProofId);
  if (!current) throw errors.notFound('the session has no proof to refresh; POST /api/zkauth/prove first');
  if (current.revoked) throw errors.conflict('the session proof was revoked');
  if (isExpired(current)) throw errors.proofExpired();
  const { record } = await issue(cookieId, session, current);
  return { proof: { stark_proof: record.starkProof, public_inputs: record.publicInputs }, txHash: record.txHash, expiresAt: iso(record.expiresAt) };
}

// ---- verify / status -----------------------------------------------------------------------

async function onChain(p: ProofRecord): Promise<boolean> {
  const reg = registry();
  try {
    const id = uuidToFelt(p.proofId);
    if (!(await reg.verifyProofExists(id))) return false;
    const stored = await reg.getProof(id);
    return !!stored && BigInt(stored.proof_hash) === BigInt(p.proofHash);
  } catch (e) {
    logger.error('chain B read failed', { error: e as Error });
    throw errors.chainBError();
  }
}

/** The STARK checks: it verifies, and its public inputs are this session's key, binding and expiry. */
function starkValid(p: ProofRecord, key: KeyRecord, session: Session): boolean {
  const expected = encodePublicInputs({ keyHash: key.keyHash.map((x) => BigInt(x)), sessionId: session.hash, expiresAt: p.expiresAt });
  return (
    p.sessionHash === session.hash &&
    p.publicInputs.length === expected.length &&
    p.publicInputs.every((x, i) => x === expected[i]) &&
    verifySession(p.starkProof, p.publicInputs)
  );
}

/** `POST /api/zkauth/verify`: the session's current proof, checked again, and its presence on chain B. */
export async function verify(session: Session) {
  const key = await keyRecord(session.hash);
  const p = await proofRecord(key?.currentProofId);
  const contract = registry().address;
  if (!key || !p) return { valid: false, proofExpiry: null, starknet: { contract, verified: false } };
  if (p.revoked) return { valid: false, proofExpiry: iso(p.expiresAt), starknet: { contract, verified: false } };
  if (isExpired(p)) throw errors.proofExpired();
  const chain = await onChain(p);
  return { valid: chain && starkValid(p, key, session), proofExpiry: iso(p.expiresAt), starknet: { contract: p.contract, verified: chain } };
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
      const p = await proofRecord((await keyRecord(found.session.hash))?.currentProofId);
      if (p && !p.revoked && isExpired(p)) throw errors.proofExpired();
    }
    throw errors.sessionExpired();
  }
  throw errors.unauthenticated();
}

/** The `starknet` block and `publicKey` of the Auth status; a chain outage reads as unverified. */
export async function proofStatus(session: Session) {
  const key = await keyRecord(session.hash);
  const p = await proofRecord(key?.currentProofId);
  let verified = false;
  if (p && !p.revoked && !isExpired(p)) {
    verified = await onChain(p).catch(() => false);
  }
  return {
    publicKey: key?.publicKey ?? null,
    starknet: { verified, contract: p?.contract ?? registry().address, proofExpiry: p ? iso(p.expiresAt) : null },
  };
}

/** A proof by id, as its record says now (for tests and support tools; never the key). */
export async function proofById(proofId: string): Promise<Pick<ProofRecord, 'proofId' | 'revoked' | 'revokedReason' | 'expiresAt' | 'txHash'> | undefined> {
  const p = await proofRecord(proofId);
  return p && { proofId: p.proofId, revoked: p.revoked, revokedReason: p.revokedReason, expiresAt: p.expiresAt, txHash: p.txHash };
}

// ---- logout --------------------------------------------------------------------------------

/**
 * `POST /api/zkauth/logout`: revokes the session's proof, forgets its key and ends the session
 * (live or expired). Harmless without a session.
 */
export async function logoutSession(cookieId: string | undefined): Promise<{ proofRevoked: boolean }> {
  if (!cookieId || cookieId.length > 128) return { proofRevoked: false };
  const found = await loadSession(cookieId);
  if (found.state === 'none') return { proofRevoked: false };
  const hash = found.session.hash;
  const key = await keyRecord(hash);
  const proofRevoked = key?.currentProofId ? await revoke(key.currentProofId, 'logout') : false;
  await deleteItem(keyItemKey(hash));
  await destroySession(hash);
  return { proofRevoked };
}

/** The current proof id of a session (tests follow a proof past logout with it). */
export const currentProofId = async (sessionHash: string) => (await keyRecord(sessionHash))?.currentProofId;

export { AIR_VERSION };
