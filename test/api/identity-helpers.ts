import { createIdentity, type EncryptedIdentity, type IdentityKeys } from '#lib/client/identity.ts';
import type { HttpClient } from '../support/runtime.ts';

export const PASSWORD = 'correct horse battery';

let counter = 0;
/** A username unique to this run (3–32 of [A-Za-z0-9_.-]). */
export const uniqueName = (prefix = 'u') => `${prefix}_${process.pid % 1000}_${Date.now() % 1e7}_${counter++}`.slice(0, 32);

/** Identity material made once per file: PBKDF2 at 100000 iterations costs ~70 ms a call. */
export async function newIdentity(password = PASSWORD, iterations = 100_000): Promise<{ keys: IdentityKeys; encrypted: EncryptedIdentity }> {
  return createIdentity(password, iterations);
}

let shared: Promise<{ keys: IdentityKeys; encrypted: EncryptedIdentity }> | undefined;

/** Registers; accounts of the default password share one identity key (tests that care make their own). */
export async function registerUser(client: HttpClient, username = uniqueName(), password = PASSWORD, iterations = 100_000) {
  const identity = password === PASSWORD && iterations === 100_000 ? await (shared ??= newIdentity()) : await newIdentity(password, iterations);
  const res = await client.post('/api/auth/register', { username, password, ...identity.encrypted });
  return { res, username, password, identity };
}

/** Registers and signs in on `client`; returns what a test needs of the account. */
export async function signedInUser(client: HttpClient) {
  const r = await registerUser(client);
  if (r.res.status !== 201) throw new Error(`register: ${r.res.status} ${JSON.stringify(r.res.json)}`);
  const login = await client.post('/api/auth/login', { username: r.username, password: r.password });
  if (login.status !== 200) throw new Error(`login: ${login.status} ${JSON.stringify(login.json)}`);
  return { ...r, user: r.res.json.user as { id: string; username: string; zkId: string; identityPublicKey: string } };
}
