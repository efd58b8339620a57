import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { createHash } from 'node:crypto';
import { generateSecretKey, publicKeyHash, type KeyCustody } from '#lib/stark/index.ts';
import type { Session } from '#lib/data/sessions.ts';
import { claimClientKey, getStarkKey, putNewStarkKey, type StarkKeyRecord } from '#lib/data/stark-keys.ts';
import { errors } from '#lib/errors.ts';

/**
 * Key material. Each session gets its own secret key (4 Goldilocks felts, ~256 bits), made at
 * OAuth login (or at the first prove of any other session). The server keeps it encrypted under
 * a key derived (HKDF-SHA-256) from the session cookie itself, which the table never stores: a
 * copy of the table does not reveal it, and only a request bearing the cookie can use it. It is
 * never returned or logged; its hash (RPO, 4 felts) is the session's public key, shown as
 * `publicKey` (0x + 64 hex digits). Proofs made with it are labelled server-held.
 *
 * A client that can prove (lib/client/stark-key.ts) keeps its own key instead: its first proof
 * carries the key's hash, and once that proof verifies the session is bound to it (custody
 * `client`; the server-held key, if any, is dropped). The server then never holds a key that can
 * prove for the session.
 */
const wrappingKey = (cookieId: string, sessionHash: string) => Buffer.from(hkdfSync('sha256', cookieId, 'shroud/stark-session-key/v1', sessionHash, 32));

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

/** The key hash a record keeps, as felts. */
export const keyHashOf = (record: StarkKeyRecord): bigint[] => record.keyHash.map((x) => BigInt(x));
export const custodyOf = (record: StarkKeyRecord): KeyCustody => record.custody ?? 'server';

/**
 * The session id client-held proofs are bound to: a hash of the session's hash, so it names the
 * session without being its table key. The status reports it as `sessionBinding` (the client cannot
 * read its HttpOnly cookie); server-held proofs keep binding the session hash itself.
 */
export const clientBindingId = (sessionHash: string): string => createHash('sha256').update('shroud/stark-client-binding/v1').update(sessionHash).digest('hex');

/** Binds the session to a client-held key; CONFLICT when it is already bound to another. */
export async function bindClientKey(session: Session, keyHash: bigint[]): Promise<void> {
  const ok = await claimClientKey(
    session.hash,
    publicKeyHex(keyHash),
    keyHash.map((x) => `0x${felt16(x)}`),
    session.absoluteExpiresAt,
  );
  if (!ok) throw errors.conflict('the session is bound to another client key');
}

/**
 * The session's key, made on first use. Two concurrent first uses race on a conditional put and
 * the loser takes the winner's key, so a session never has two.
 */
export async function sessionKey(cookieId: string, session: Session): Promise<{ sk: bigint[]; keyHash: bigint[]; record: StarkKeyRecord }> {
  const existing = await getStarkKey(session.hash);
  if (existing?.enc) return { sk: unseal(existing.enc, cookieId, session.hash), keyHash: keyHashOf(existing), record: existing };
  if (existing) throw errors.conflict('the session key is held by the client: send its proof (stark_proof)');
  const sk = generateSecretKey();
  const keyHash = publicKeyHash(sk);
  const record: StarkKeyRecord = {
    custody: 'server',
    enc: seal(sk, cookieId, session.hash),
    publicKey: publicKeyHex(keyHash),
    keyHash: keyHash.map((x) => `0x${felt16(x)}`),
  };
  if (await putNewStarkKey(session.hash, record, session.absoluteExpiresAt)) return { sk, keyHash, record };
  return sessionKey(cookieId, session);
}
