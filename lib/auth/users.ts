import { randomInt, randomUUID } from 'node:crypto';
import { TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { clock } from '#lib/clock.ts';
import { db, tableName } from '#lib/data/client.ts';
import { getItem, putNew, type Item } from '#lib/data/items.ts';

/**
 * Users repository. Single-table layout:
 *
 *   USER#<id>            / USER      the user record
 *   USERNAME#<lower>     / USERNAME  { userId }  — makes usernames unique, case-insensitively
 *   ZKID#<zkId>          / ZKID      { userId }  — makes zkIds unique
 *
 * The record and its uniqueness items are written in ONE TransactWriteItems, each item under
 * `attribute_not_exists(pk)`: two concurrent registrations of one name cannot both succeed, and
 * there is no read-then-write window.
 */
export interface Identity {
  /** base64 of the raw 32-byte Ed25519 public key. */
  identityPublicKey: string;
  identityPrivateKeyEncrypted: string;
  identityPrivateKeyIv: string;
  kdfSalt: string;
  kdfIterations: number;
}

export interface User extends Partial<Identity> {
  id: string;
  /** Absent on legacy accounts (created by social login). */
  username?: string;
  zkId?: string;
  passwordHash?: string;
  name?: string;
  email?: string;
  avatar?: string;
  createdAt: string;
  identityCreatedAt?: string;
}

export type UserWithIdentity = User & Identity & { zkId: string };

export const hasIdentity = (u: User): u is UserWithIdentity =>
  typeof u.zkId === 'string' && typeof u.identityPublicKey === 'string';

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

type Reason = { Code?: string };
const reasonsOf = (e: unknown): Reason[] | undefined =>
  e instanceof Error && e.name === 'TransactionCanceledException'
    ? ((e as { CancellationReasons?: Reason[] }).CancellationReasons ?? [])
    : undefined;

/**
 * Runs a transaction, retrying when DynamoDB cancels it for a conflict with a concurrent one
 * (TransactionConflict): the retry then sees the winner's item and fails its condition cleanly.
 * `onConditionFailed(i)` maps a failed condition of item `i` to a domain error, or to `'retry'`.
 */
async function transact(
  build: () => ConstructorParameters<typeof TransactWriteCommand>[0],
  onConditionFailed: (index: number) => Error | 'retry',
): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await db.send(new TransactWriteCommand(build()));
      return;
    } catch (e) {
      const reasons = reasonsOf(e);
      if (!reasons || attempt >= 5) throw e;
      const failed = reasons.findIndex((r) => r.Code === 'ConditionalCheckFailed');
      if (failed >= 0) {
        const out = onConditionFailed(failed);
        if (out !== 'retry') throw out;
      } else if (!reasons.some((r) => r.Code === 'TransactionConflict')) throw e;
      await new Promise((ok) => setTimeout(ok, 10 + randomInt(40) * (attempt + 1)));
    }
  }
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
      return {
        TransactItems: [
          { Put: { TableName: tableName, Item: { ...userKey(id), ...user }, ...notExists } },
          { Put: { TableName: tableName, Item: { ...usernameKey(input.username), userId: id }, ...notExists } },
          { Put: { TableName: tableName, Item: { ...zkIdKey(user.zkId), userId: id }, ...notExists } },
        ],
      };
    },
    // 1: the name is taken; 2: a zkId collision (~2^-82): draw another; 0: uuid collision, same.
    (i) => (i === 1 ? new UsernameTakenError() : 'retry'),
  );
  return user;
}

/**
 * A legacy account: no username, no password, no identity (accounts made by social login). The
 * OAuth flow links provider subjects to it; `upgradeLegacy` later gives it an identity.
 */
export async function createLegacyUser(profile: { name?: string; email?: string; avatar?: string } = {}): Promise<User> {
  const user: User = { id: randomUUID(), ...profile, createdAt: clock.now().toISOString() };
  await putNew({ ...userKey(user.id), ...user });
  return user;
}

/** Gives a legacy account an identity: the record's update and the zkId item in one transaction. */
export async function addIdentity(userId: string, identity: Identity): Promise<UserWithIdentity> {
  const identityCreatedAt = clock.now().toISOString();
  let zkId = '';
  await transact(
    () => {
      zkId = newZkId();
      return {
        TransactItems: [
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
        ],
      };
    },
    (i) => (i === 0 ? new IdentityExistsError() : 'retry'),
  );
  const user = await getUser(userId);
  if (!user || !hasIdentity(user)) throw new Error('user vanished during upgrade');
  return user;
}

const strip = (item: Item | undefined): User | undefined => {
  if (!item) return undefined;
  const { pk: _pk, sk: _sk, ttl: _ttl, ...user } = item;
  return user as unknown as User;
};

export const getUser = async (id: string): Promise<User | undefined> => strip(await getItem(userKey(id)));

export async function getUserByUsername(username: string): Promise<User | undefined> {
  const ref = await getItem(usernameKey(username));
  return ref ? getUser(String(ref.userId)) : undefined;
}

export async function getUserByZkId(zkId: string): Promise<User | undefined> {
  if (!ZK_ID_PATTERN.test(zkId)) return undefined;
  const ref = await getItem(zkIdKey(zkId));
  return ref ? getUser(String(ref.userId)) : undefined;
}

/** Profile fields a provider reports (name, email, avatar) may change; identity fields never do here. */
export async function updateProfile(id: string, fields: { name?: string; email?: string; avatar?: string }): Promise<void> {
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

/** What any response may show of a user: never the password hash or the encrypted key. */
export const publicUser = (u: User) => ({
  id: u.id,
  username: u.username ?? null,
  zkId: u.zkId ?? null,
  identityPublicKey: u.identityPublicKey ?? null,
});

/**
 * A new legacy account as a TransactWriteItems `Put`, for a caller that must create it in one
 * transaction with items of its own (an OAuth sign-up and its provider link: never an account
 * without its link, nor a link without its account).
 */
export function newLegacyUserPut(profile: { name?: string; email?: string; avatar?: string } = {}) {
  const user: User = { id: randomUUID(), ...profile, createdAt: clock.now().toISOString() };
  return { user, put: { TableName: tableName, Item: { ...userKey(user.id), ...user }, ...notExists } };
}
