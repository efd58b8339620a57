import { createPublicKey } from 'node:crypto';
import * as z from 'zod';
import { createSession, type Session } from '#lib/data/sessions.ts';
import { errors, isAppError, isDependencyFailure } from '#lib/errors.ts';
import { clearCookie, serializeCookie, SESSION_COOKIE } from '#lib/http/cookies.ts';
import { logger } from '#lib/log.ts';
import { logoutSession } from '#lib/auth/stark-session/logout.ts';
import { clearFailures, reservePasswordCheck } from './login-throttle.ts';
import { hashPassword, MAX_PASSWORD_BYTES, verifyPassword } from './passwords.ts';
import {
  addIdentity,
  createUser,
  getUser,
  getUserByUsername,
  hasIdentity,
  IdentityExistsError,
  UsernameTakenError,
  type Identity,
  type User,
} from '#lib/data/users.ts';

/** Zero-knowledge identity: register, login, logout, session, identity blob, legacy upgrade. */

/** What any response may show of a user: never the password hash or the encrypted key. */
export const publicUser = (u: User) => ({
  id: u.id,
  username: u.username ?? null,
  zkId: u.zkId ?? null,
  identityPublicKey: u.identityPublicKey ?? null,
});

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** A standard (padded) base64 string that decodes to `min`–`max` bytes. */
const base64 = (min: number, max: number) =>
  z
    .string()
    .max(Math.ceil(max / 3) * 4)
    .regex(BASE64, 'must be base64')
    .refine(
      (s) => {
        const n = Buffer.from(s, 'base64').length;
        return n >= min && n <= max;
      },
      min === max ? `must decode to ${min} bytes` : `must decode to ${min}–${max} bytes`,
    );

/** The raw 32-byte Ed25519 public key as a KeyObject, or null when it is not one. */
export function ed25519PublicKey(b64: string) {
  const raw = Buffer.from(b64, 'base64');
  if (raw.length !== 32) return null;
  try {
    return createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: raw.toString('base64url') }, format: 'jwk' });
  } catch {
    return null;
  }
}

export const identityFields = {
  identityPublicKey: base64(32, 32).refine((s) => ed25519PublicKey(s) !== null, 'must be an Ed25519 public key'),
  identityPrivateKeyEncrypted: base64(16, 4096),
  identityPrivateKeyIv: base64(12, 16),
  kdfSalt: base64(8, 64),
  kdfIterations: z.number().int('must be an integer').min(100_000, 'must be at least 100000').max(10_000_000, 'must be at most 10000000'),
};

export const identityInput = z.object(identityFields);

export const registerInput = z.object({
  username: z
    .string()
    .min(3, 'must be 3–32 characters')
    .max(32, 'must be 3–32 characters')
    .regex(/^[A-Za-z0-9_.-]+$/, 'only letters, digits, _ . and -'),
  password: z
    .string()
    .min(8, 'must be at least 8 characters')
    .refine((p) => Buffer.byteLength(p) <= MAX_PASSWORD_BYTES, `must be at most ${MAX_PASSWORD_BYTES} bytes`),
  ...identityFields,
});

/** Login takes any strings: a malformed name is just an unknown user (same 401, same timing). */
export const loginInput = z.object({
  username: z.string().min(1, 'is required').max(256),
  password: z.string().min(1, 'is required').max(1024),
});

export async function register(input: z.infer<typeof registerInput>) {
  const { username, password, ...identity } = input;
  try {
    const passwordHash = await hashPassword(password);
    const user = await createUser({ username, passwordHash, ...identity });
    return { id: user.id, username: user.username, zkId: user.zkId, identityPublicKey: user.identityPublicKey };
  } catch (e) {
    if (e instanceof UsernameTakenError) throw errors.usernameExists();
    if (isAppError(e) || isDependencyFailure(e)) throw e; // a dependency down is 503 (error middleware), not this 500
    logger.error('register failed', { error: e as Error });
    throw errors.identityCreationFailed();
  }
}

/** The session cookie: HTTP-only, SameSite=Lax, Secure off only for plain-http localhost. */
export const sessionCookie = (id: string, maxAgeSeconds: number) => serializeCookie(SESSION_COOKIE, id, { maxAgeSeconds });
export const clearSessionCookie = () => clearCookie(SESSION_COOKIE);

/**
 * Password login. Every success mints a new session id (the previous session of this client, if
 * any, is destroyed), so a cookie planted before login never becomes authenticated.
 */
export async function login(input: z.infer<typeof loginInput>, previousCookie?: string) {
  const { username, password } = input;
  await reservePasswordCheck(username); // before bcrypt: at most five checks per window, atomically
  const user = /^[A-Za-z0-9_.-]{3,32}$/.test(username) ? await getUserByUsername(username) : undefined;
  // Always one bcrypt comparison: against the user's hash, or the dummy hash when there is none.
  const ok = await verifyPassword(password, user?.passwordHash);
  if (!ok || !user) throw errors.invalidCredentials();
  await clearFailures(username);
  if (previousCookie) await logoutSession(previousCookie);
  const { id, maxAgeSeconds } = await createSession(user.id, 'password');
  return { user: { id: user.id, username: user.username!, zkId: user.zkId ?? null }, cookie: sessionCookie(id, maxAgeSeconds) };
}

/**
 * Ends the session named by the cookie (live or expired) and clears the cookie; harmless without
 * one. A STARK proof attached to the session is revoked with it, as by `/api/zkauth/logout`.
 */
export async function logout(cookie: string | undefined): Promise<string> {
  await logoutSession(cookie);
  return clearSessionCookie();
}

/** The session's user, or undefined when the account is gone. */
export const sessionUser = (session: Session | null): Promise<User | undefined> => (session ? getUser(session.userId) : Promise.resolve(undefined));

export async function requireUser(session: Session | null): Promise<User> {
  const user = await sessionUser(session);
  if (!user) throw errors.unauthenticated();
  return user;
}

/** What a client needs to unlock its identity on a new device (it decrypts with its password). */
export async function identityBlob(session: Session | null): Promise<Identity & { zkId: string }> {
  const user = await requireUser(session);
  if (!hasIdentity(user)) throw errors.notFound('the account has no identity; upgrade it with POST /api/auth/upgrade-legacy');
  return {
    zkId: user.zkId,
    identityPublicKey: user.identityPublicKey,
    identityPrivateKeyEncrypted: user.identityPrivateKeyEncrypted,
    identityPrivateKeyIv: user.identityPrivateKeyIv,
    kdfSalt: user.kdfSalt,
    kdfIterations: user.kdfIterations,
  };
}

/** A legacy account (no identity) gets one; an account that has one answers 409. */
export async function upgradeLegacy(session: Session | null, identity: Identity) {
  const user = await requireUser(session);
  if (hasIdentity(user)) throw errors.conflict('the account already has an identity');
  try {
    return publicUser(await addIdentity(user.id, identity));
  } catch (e) {
    if (e instanceof IdentityExistsError) throw errors.conflict('the account already has an identity');
    if (isAppError(e) || isDependencyFailure(e)) throw e; // a dependency down is 503 (error middleware), not this 500
    logger.error('upgrade failed', { error: e as Error });
    throw errors.identityCreationFailed();
  }
}

// The answers (what the handlers return; the auth group has no envelope), for the OpenAPI document.
const userRef = { id: z.string(), username: z.string().nullable(), zkId: z.string().nullable() };
export const publicUserResponse = z.object({ ...userRef, identityPublicKey: z.string().nullable() });
export const registerResponse = z.object({ message: z.string(), user: publicUserResponse });
export const loginResponse = z.object({ message: z.string(), user: z.object(userRef) });
export const messageResponse = z.object({ message: z.string() });
export const sessionResponse = z.union([z.object({ authenticated: z.literal(true), user: publicUserResponse }), z.object({ authenticated: z.literal(false) })]);
export const meResponse = z.object({ user: z.object(userRef) });
export const identityResponse = z.object({
  zkId: z.string(),
  identityPublicKey: z.string(),
  identityPrivateKeyEncrypted: z.string(),
  identityPrivateKeyIv: z.string(),
  kdfSalt: z.string(),
  kdfIterations: z.number().int(),
});
