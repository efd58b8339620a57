import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { clock } from '#lib/clock.ts';
import { db, tableName } from '#lib/data/client.ts';
import { getItem, queryPartition } from '#lib/data/items.ts';
import { getUser, newLegacyUserPut, updateProfile } from '#lib/auth/users.ts';
import { errors } from '#lib/errors.ts';
import { isProviderId, type ProviderId } from './providers.ts';
import type { Profile } from './profile.ts';

/**
 * Provider links: which account a provider's subject signs in to. An account is found by the
 * provider's subject id only, never by email (two providers may report one email for two people,
 * and an unverified email would otherwise take over an account). Items:
 *
 *   OAUTHLINK#<provider>#<subject> / LINK        { userId }   one account per subject
 *   OAUTHUSER#<userId> / PROVIDER#<provider>      { subject }  one subject per provider and account
 *   OAUTHUSER#<userId> / COUNT                    { linked }   how many providers the account has
 *
 * Every change writes all three in one TransactWriteItems under conditions: two callbacks for one
 * new subject cannot create two accounts, and two unlinks cannot remove the last two providers
 * (the count is decremented only while it stays ≥ 1).
 */
const linkKey = (provider: ProviderId, subject: string) => ({ pk: `OAUTHLINK#${provider}#${subject}`, sk: 'LINK' });
const providerKey = (userId: string, provider: ProviderId) => ({ pk: `OAUTHUSER#${userId}`, sk: `PROVIDER#${provider}` });
const countKey = (userId: string) => ({ pk: `OAUTHUSER#${userId}`, sk: 'COUNT' });

type Reason = { Code?: string };
const reasonsOf = (e: unknown): Reason[] | undefined =>
  e instanceof Error && e.name === 'TransactionCanceledException' ? ((e as { CancellationReasons?: Reason[] }).CancellationReasons ?? []) : undefined;

/** Runs the transaction; returns the index of the item whose condition failed, or -1 on success. */
async function transact(items: NonNullable<ConstructorParameters<typeof TransactWriteCommand>[0]['TransactItems']>): Promise<number> {
  for (let attempt = 0; ; attempt++) {
    try {
      await db.send(new TransactWriteCommand({ TransactItems: items }));
      return -1;
    } catch (e) {
      const reasons = reasonsOf(e);
      if (!reasons) throw e;
      const failed = reasons.findIndex((r) => r.Code === 'ConditionalCheckFailed');
      if (failed >= 0) return failed;
      // A conflict with a concurrent transaction on the same items: try again, it then sees the winner.
      if (!reasons.some((r) => r.Code === 'TransactionConflict') || attempt >= 5) throw e;
      await new Promise((ok) => setTimeout(ok, 15 * (attempt + 1) + Math.random() * 30));
    }
  }
}

export async function linkedUserId(provider: ProviderId, subject: string): Promise<string | undefined> {
  const link = await getItem(linkKey(provider, subject));
  return link ? String(link.userId) : undefined;
}

const profileFields = (p: Profile) => ({ name: p.name, email: p.email, avatar: p.avatar });

/**
 * Login: the account linked to this subject, or a new legacy account (no username, no password,
 * no zk identity; `/api/auth/upgrade-legacy` can give it one) created with its link in one
 * transaction.
 */
export async function accountFor(provider: ProviderId, profile: Profile): Promise<{ userId: string; created: boolean }> {
  const existing = await linkedUserId(provider, profile.subject);
  if (existing) {
    if (!(await getUser(existing))) throw errors.authFailed('the linked account no longer exists');
    await updateProfile(existing, profileFields(profile));
    return { userId: existing, created: false };
  }
  const { user, put } = newLegacyUserPut(profileFields(profile));
  const linkedAt = clock.now().toISOString();
  const failed = await transact([
    { Put: put },
    { Put: { TableName: tableName, Item: { ...linkKey(provider, profile.subject), userId: user.id, provider, linkedAt }, ConditionExpression: 'attribute_not_exists(pk)' } },
    { Put: { TableName: tableName, Item: { ...providerKey(user.id, provider), provider, subject: profile.subject, linkedAt }, ConditionExpression: 'attribute_not_exists(pk)' } },
    { Put: { TableName: tableName, Item: { ...countKey(user.id), linked: 1 }, ConditionExpression: 'attribute_not_exists(pk)' } },
  ]);
  if (failed === -1) return { userId: user.id, created: true };
  if (failed === 1) {
    // A concurrent callback for the same subject created the account first: sign in to it.
    const winner = await linkedUserId(provider, profile.subject);
    if (winner) return { userId: winner, created: false };
  }
  throw new Error(`account creation failed on item ${failed}`);
}

/**
 * Link mode: binds the provider's subject to the signed-in account. Refused when the subject
 * already signs in to another account, or the account already has another subject of this
 * provider. Linking what is already linked is a no-op.
 */
export async function linkProvider(userId: string, provider: ProviderId, profile: Profile): Promise<void> {
  if (!(await getUser(userId))) throw errors.authFailed('the account no longer exists');
  const linkedAt = clock.now().toISOString();
  const failed = await transact([
    { Put: { TableName: tableName, Item: { ...linkKey(provider, profile.subject), userId, provider, linkedAt }, ConditionExpression: 'attribute_not_exists(pk)' } },
    { Put: { TableName: tableName, Item: { ...providerKey(userId, provider), provider, subject: profile.subject, linkedAt }, ConditionExpression: 'attribute_not_exists(pk)' } },
    {
      Update: {
        TableName: tableName,
        Key: countKey(userId),
        UpdateExpression: 'ADD linked :one',
        ExpressionAttributeValues: { ':one': 1 },
      },
    },
  ]);
  if (failed === -1) return;
  const owner = await linkedUserId(provider, profile.subject);
  const mine = await getItem(providerKey(userId, provider));
  if (owner === userId && mine?.subject === profile.subject) return;
  if (owner && owner !== userId) throw errors.authFailed(`this ${provider} account is linked to another account`);
  throw errors.authFailed(`another ${provider} account is already linked`);
}

/** The providers linked to an account, in a stable order. */
export async function linkedProviders(userId: string): Promise<ProviderId[]> {
  const items = await queryPartition(`OAUTHUSER#${userId}`, { prefix: 'PROVIDER#' });
  return items.map((i) => String(i.provider)).filter(isProviderId).sort();
}

/**
 * Removes a provider from the account. The last one cannot go (409 CANNOT_UNLINK) unless the
 * account also has a password to sign in with; the check is the count's condition, in the same
 * transaction as the removal, so concurrent unlinks cannot both pass it.
 */
export async function unlinkProvider(userId: string, provider: ProviderId): Promise<ProviderId[]> {
  const mine = await getItem(providerKey(userId, provider));
  if (!mine) throw errors.notFound(`${provider} is not linked to this account`);
  const subject = String(mine.subject);
  // A password never goes away once set, so reading it outside the transaction is safe.
  const hasPassword = typeof (await getUser(userId))?.passwordHash === 'string';
  const failed = await transact([
    { Delete: { TableName: tableName, Key: providerKey(userId, provider), ConditionExpression: 'subject = :s', ExpressionAttributeValues: { ':s': subject } } },
    { Delete: { TableName: tableName, Key: linkKey(provider, subject), ConditionExpression: 'userId = :u', ExpressionAttributeValues: { ':u': userId } } },
    {
      Update: {
        TableName: tableName,
        Key: countKey(userId),
        UpdateExpression: 'ADD linked :minus',
        ConditionExpression: hasPassword ? 'attribute_exists(pk)' : 'linked > :one',
        ExpressionAttributeValues: hasPassword ? { ':minus': -1 } : { ':minus': -1, ':one': 1 },
      },
    },
  ]);
  if (failed === 2) throw errors.cannotUnlink();
  if (failed >= 0) throw errors.notFound(`${provider} is not linked to this account`);
  return linkedProviders(userId);
}
