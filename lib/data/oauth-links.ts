import * as z from 'zod';
import { clock } from '#lib/clock.ts';
import { tableName } from './client.ts';
import { decoder, listPartition, readItem, transactWrite, type TransactItems } from './items.ts';

/**
 * Provider links: which account a provider's subject signs in to (no TTL: links last until
 * unlinked). Items:
 *
 *   OAUTHLINK#<provider>#<subject> / LINK        { userId, provider, linkedAt }   one account per subject
 *   OAUTHUSER#<userId> / PROVIDER#<provider>      { provider, subject, linkedAt }  one subject per provider and account
 *   OAUTHUSER#<userId> / COUNT                    { linked }                       how many providers the account has
 *
 * Every change writes all three in one TransactWriteItems under conditions: two callbacks for one
 * new subject cannot create two accounts, and two unlinks cannot remove the last two providers
 * (the count is decremented only while it stays ≥ 1).
 */
const linkKey = (provider: string, subject: string) => ({ pk: `OAUTHLINK#${provider}#${subject}`, sk: 'LINK' });
const accountPartition = (userId: string) => `OAUTHUSER#${userId}`;
const providerKey = (userId: string, provider: string) => ({ pk: accountPartition(userId), sk: `PROVIDER#${provider}` });
const countKey = (userId: string) => ({ pk: accountPartition(userId), sk: 'COUNT' });

const linkDecoder = decoder('OAuth link', z.object({ userId: z.string(), provider: z.string().optional(), linkedAt: z.string().optional() }));
const providerLinkSchema = z.object({ provider: z.string(), subject: z.string(), linkedAt: z.string().optional() });
export type ProviderLink = z.infer<typeof providerLinkSchema>;
const providerLinkDecoder = decoder('account provider link', providerLinkSchema);

const notExists = { ConditionExpression: 'attribute_not_exists(pk)' };

/** The three puts of a new link (the count's change is the caller's: a put or an ADD). */
function linkPuts(userId: string, provider: string, subject: string): TransactItems {
  const linkedAt = clock.now().toISOString();
  return [
    { Put: { TableName: tableName, Item: { ...linkKey(provider, subject), userId, provider, linkedAt }, ...notExists } },
    { Put: { TableName: tableName, Item: { ...providerKey(userId, provider), provider, subject, linkedAt }, ...notExists } },
  ];
}

export async function linkedUserId(provider: string, subject: string): Promise<string | undefined> {
  return (await readItem(linkKey(provider, subject), linkDecoder))?.userId;
}

export const providerLink = (userId: string, provider: string): Promise<ProviderLink | undefined> =>
  readItem(providerKey(userId, provider), providerLinkDecoder);

/** The providers linked to an account. */
export async function linkedProviderNames(userId: string): Promise<string[]> {
  return (await listPartition(accountPartition(userId), providerLinkDecoder, { prefix: 'PROVIDER#' })).map((l) => l.provider);
}

/**
 * A new account (the `Put` of lib/data/users.ts's `newLegacyUserPut`) and its first link, in one
 * transaction. `'subject-taken'`: a concurrent sign-up of the same subject won.
 */
export async function createLinkedAccount(userPut: NonNullable<TransactItems[number]['Put']>, userId: string, provider: string, subject: string) {
  const failed = await transactWrite([
    { Put: userPut },
    ...linkPuts(userId, provider, subject),
    { Put: { TableName: tableName, Item: { ...countKey(userId), linked: 1 }, ...notExists } },
  ]);
  if (failed === -1) return 'created' as const;
  if (failed === 1) return 'subject-taken' as const;
  throw new Error(`account creation failed on item ${failed}`);
}

/** Binds a subject to an existing account; false when the subject or the account's provider slot is taken. */
export async function addLink(userId: string, provider: string, subject: string): Promise<boolean> {
  const failed = await transactWrite([
    ...linkPuts(userId, provider, subject),
    { Update: { TableName: tableName, Key: countKey(userId), UpdateExpression: 'ADD linked :one', ExpressionAttributeValues: { ':one': 1 } } },
  ]);
  return failed === -1;
}

/**
 * Removes a link. Unless `mayRemoveLast`, the count's condition (in the same transaction) keeps
 * at least one provider, so concurrent unlinks cannot both pass it: then `'last'`. `'gone'`: the
 * link changed or went meanwhile.
 */
export async function removeLink(userId: string, link: ProviderLink, mayRemoveLast: boolean): Promise<'removed' | 'last' | 'gone'> {
  const failed = await transactWrite([
    {
      Delete: {
        TableName: tableName,
        Key: providerKey(userId, link.provider),
        ConditionExpression: 'subject = :s',
        ExpressionAttributeValues: { ':s': link.subject },
      },
    },
    {
      Delete: {
        TableName: tableName,
        Key: linkKey(link.provider, link.subject),
        ConditionExpression: 'userId = :u',
        ExpressionAttributeValues: { ':u': userId },
      },
    },
    {
      Update: {
        TableName: tableName,
        Key: countKey(userId),
        UpdateExpression: 'ADD linked :minus',
        ConditionExpression: mayRemoveLast ? 'attribute_exists(pk)' : 'linked > :one',
        ExpressionAttributeValues: mayRemoveLast ? { ':minus': -1 } : { ':minus': -1, ':one': 1 },
      },
    },
  ]);
  if (failed === -1) return 'removed';
  return failed === 2 ? 'last' : 'gone';
}
