import { randomInt, randomUUID } from 'node:crypto';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { clock } from '#lib/clock.ts';
import { db, tableName } from './client.ts';
import { decoder, putNew, readItem, transactWrite, type TransactItems } from './items.ts';
import { CONFLICT, retryOnConflict } from './retry.ts';

/**
 * Users. Single-table layout (no TTL: accounts do not expire):
 *
 *   USER#<id>            / USER      User
 *   USERNAME#<lower>     / USERNAME  { userId }  — makes usernames unique, case-insensitively
 *   ZKID#<zkId>          / ZKID      { userId }  — makes zkIds unique
 *
 * The record and its uniqueness items are written in ONE TransactWriteItems, each item under
 * `attribute_not_exists(pk)`: two concurrent registrations of one name cannot both succeed, and
 * there is no read-then-write window.
 */
const identityShape = {
  /** base64 of the raw 32-byte Ed25519 public key. */
  identityPublicKey: z.string(),
  identityPrivateKeyEncrypted: z.string(),
  identityPrivateKeyIv: z.string(),
  kdfSalt: z.string(),
  kdfIterations: z.number(),
};
export type Identity = { [K in keyof typeof identityShape]: z.infer<(typeof identityShape)[K]> };

const userSchema = z.object({
  id: z.string(),
  /** Absent on legacy accounts (created by social login). */
  username: z.string().optional(),
  zkId: z.string().optional(),
  passwordHash: z.string().optional(),
  name: z.string().optional(),
  email: z.string().optional(),
  avatar: z.string().optional(),
  createdAt: z.string(),
  identityCreatedAt: z.string().optional(),
  ...z.object(identityShape).partial().shape,
});
export type User = z.infer<typeof userSchema>;
export const userDecoder = decoder('user', userSchema);
/** USERNAME# and ZKID# items: a reference to the account. */
const userRefDecoder = decoder('user reference', z.object({ userId: z.string() }));

export type UserWithIdentity = User & Identity & { zkId: string };
export type Profile = { name?: string; email?: string; avatar?: string };

export const hasIdentity = (u: User): u is UserWithIdentity => typeof u.zkId === 'string' && typeof u.identityPublicKey === 'string';

const userKey = (id: string) => ({ pk: `USER#${id}`, sk: 'USER' });
const usernameKey = (username: string) => ({ pk: `USERNAME#${username.toLowerCase()}`, sk: 'USERNAME' });
const zkIdKey = (zkId: string) => ({ pk: `ZKID#${zkId}`, sk: 'ZKID' });

const ZK_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';
export const ZK_ID_PATTERN = /^did:zk:[a-z0-9]{16}$/;

/** `did:zk:` + 16 lower-case alphanumerics, each drawn uniformly from the CSPRNG (~82 bits). */
export function newZkId(): string {
  let s = '';
  for (let i = 0; i < 16; i++) s += ZK_ALPHABET[randomInt(ZK_ALPHABET.length)];
  return `did:zk:${s}`;
}

/** Raised when a username (case-insensitively) is taken. */
export class UsernameTakenError extends Error {
  constructor() {
    super('username already exists');
    this.name = 'UsernameTakenError';
  }
}
/** Raised when an account that already has an identity is upgraded. */
export class IdentityExistsError extends Error {
  constructor() {
    super('the account already has an identity');
    this.name = 'IdentityExistsError';
  }
}

/**
 * Runs the transaction `build()` makes until it succeeds. `onConditionFailed(i)` maps a failed
 * condition of item `i` to a domain error, or to `'retry'` (a fresh draw of ids: `build` is
 * called again).
 */
async function transact(build: () => TransactItems, onConditionFailed: (index: number) => Error | 'retry'): Promise<void> {
  let failed = -1;
  await retryOnConflict(
    async () => {
      failed = await transactWrite(build());
      if (failed === -1) return undefined;
      const out = onConditionFailed(failed);
      if (out !== 'retry') throw out;
      return CONFLICT;
    },
    // A fresh draw of ids collides again only by chance: no pause is needed between tries.
    { attempts: 6, baseMs: 0, exhausted: () => new Error(`user transaction: item ${failed} kept failing its condition`) },
  );
}

const notExists = { ConditionExpression: 'attribute_not_exists(pk)' };

/** A new account with username, password hash and identity; the zkId is drawn here. */
export async function createUser(input: { username: string; passwordHash: string } & Identity): Promise<UserWithIdentity> {
  const createdAt = clock.now().toISOString();
  let user!: UserWithIdentity;
  await transact(
    () => {
      const id = randomUUID();
      user = { id, ...input, zkId: newZkId(), createdAt, identityCreatedAt: createdAt };
      return [
        { Put: { TableName: tableName, Item: { ...userKey(id), ...user }, ...notExists } },
        { Put: { TableName: tableName, Item: { ...usernameKey(input.username), userId: id }, ...notExists } },
        { Put: { TableName: tableName, Item: { ...zkIdKey(user.zkId), userId: id }, ...notExists } },
      ];
    },
    // 1: the name is taken; 2: a zkId collision (~2^-82): draw another; 0: uuid collision, same.
    (i) => (i === 1 ? new UsernameTakenError() : 'retry'),
  );
  return user;
}

/**
 * A legacy account: no username, no password, no identity (accounts made by social login). The
 * OAuth flow links provider subjects to it; `addIdentity` later gives it an identity.
 */
export async function createLegacyUser(profile: Profile = {}): Promise<User> {
  const user: User = { id: randomUUID(), ...profile, createdAt: clock.now().toISOString() };
  await putNew({ ...userKey(user.id), ...user });
  return user;
}

/**
 * A new legacy account as a TransactWriteItems `Put`, for a caller that must create it in one
 * transaction with items of its own (an OAuth sign-up and its provider link: never an account
 * without its link, nor a link without its account).
 */
export function newLegacyUserPut(profile: Profile = {}) {
  const user: User = { id: randomUUID(), ...profile, createdAt: clock.now().toISOString() };
  return { user, put: { TableName: tableName, Item: { ...userKey(user.id), ...user }, ...notExists } };
}

/** Gives a legacy account an identity: the record's update and the zkId item in one transaction. */
export async function addIdentity(userId: string, identity: Identity): Promise<UserWithIdentity> {
  const identityCreatedAt = clock.now().toISOString();
  await transact(
    () => {
      const zkId = newZkId();
      return [
        {
          Update: {
            TableName: tableName,
            Key: userKey(userId),
            UpdateExpression:
              'SET zkId = :z, identityPublicKey = :pk, identityPrivateKeyEncrypted = :enc, identityPrivateKeyIv = :iv, kdfSalt = :salt, kdfIterations = :it, identityCreatedAt = :at',
            ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(zkId)',
            ExpressionAttributeValues: {
              ':z': zkId,
              ':pk': identity.identityPublicKey,
              ':enc': identity.identityPrivateKeyEncrypted,
              ':iv': identity.identityPrivateKeyIv,
              ':salt': identity.kdfSalt,
              ':it': identity.kdfIterations,
              ':at': identityCreatedAt,
            },
          },
        },
        { Put: { TableName: tableName, Item: { ...zkIdKey(zkId), userId }, ...notExists } },
      ];
    },
    (i) => (i === 0 ? new IdentityExistsError() : 'retry'),
  );
  const user = await getUser(userId);
  if (!user || !hasIdentity(user)) throw new Error('user vanished during upgrade');
  return user;
}

export const getUser = (id: string): Promise<User | undefined> => readItem(userKey(id), userDecoder);

export async function getUserByUsername(username: string): Promise<User | undefined> {
  const ref = await readItem(usernameKey(username), userRefDecoder);
  return ref ? getUser(ref.userId) : undefined;
}

export async function getUserByZkId(zkId: string): Promise<User | undefined> {
  if (!ZK_ID_PATTERN.test(zkId)) return undefined;
  const ref = await readItem(zkIdKey(zkId), userRefDecoder);
  return ref ? getUser(ref.userId) : undefined;
}

/** Profile fields a provider reports (name, email, avatar) may change; identity fields never do here. */
export async function updateProfile(id: string, fields: Profile): Promise<void> {
  const entries = Object.entries(fields).filter(([, v]) => v !== undefined);
  if (!entries.length) return;
  await db.send(
    new UpdateCommand({
      TableName: tableName,
      Key: userKey(id),
      UpdateExpression: `SET ${entries.map((_, i) => `#f${i} = :v${i}`).join(', ')}`,
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeNames: Object.fromEntries(entries.map(([k], i) => [`#f${i}`, k])),
      ExpressionAttributeValues: Object.fromEntries(entries.map(([, v], i) => [`:v${i}`, v])),
    }),
  );
}
