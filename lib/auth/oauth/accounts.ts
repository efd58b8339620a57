import { addLink, createLinkedAccount, linkedProviderNames, linkedUserId, providerLink, removeLink } from '#lib/data/oauth-links.ts';
import { getUser, newLegacyUserPut, updateProfile } from '#lib/data/users.ts';
import { errors } from '#lib/errors.ts';
import { isProviderId, type ProviderId } from './providers.ts';
import type { Profile } from './profile.ts';

/**
 * Which account a provider's subject signs in to (the links: lib/data/oauth-links.ts). An
 * account is found by the provider's subject id only, never by email (two providers may report
 * one email for two people, and an unverified email would otherwise take over an account).
 */

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
  const outcome = await createLinkedAccount(put, user.id, provider, profile.subject);
  if (outcome === 'created') return { userId: user.id, created: true };
  // A concurrent callback for the same subject created the account first: sign in to it.
  const winner = await linkedUserId(provider, profile.subject);
  if (winner) return { userId: winner, created: false };
  throw new Error('account creation failed on item 1');
}

/**
 * Link mode: binds the provider's subject to the signed-in account. Refused when the subject
 * already signs in to another account, or the account already has another subject of this
 * provider. Linking what is already linked is a no-op.
 */
export async function linkProvider(userId: string, provider: ProviderId, profile: Profile): Promise<void> {
  if (!(await getUser(userId))) throw errors.authFailed('the account no longer exists');
  if (await addLink(userId, provider, profile.subject)) return;
  const owner = await linkedUserId(provider, profile.subject);
  const mine = await providerLink(userId, provider);
  if (owner === userId && mine?.subject === profile.subject) return;
  if (owner && owner !== userId) throw errors.authFailed(`this ${provider} account is linked to another account`);
  throw errors.authFailed(`another ${provider} account is already linked`);
}

/** The providers linked to an account, in a stable order. */
export async function linkedProviders(userId: string): Promise<ProviderId[]> {
  return (await linkedProviderNames(userId)).filter(isProviderId).sort();
}

/**
 * Removes a provider from the account. The last one cannot go (409 CANNOT_UNLINK) unless the
 * account also has a password to sign in with; the check is the count's condition, in the same
 * transaction as the removal, so concurrent unlinks cannot both pass it.
 */
export async function unlinkProvider(userId: string, provider: ProviderId): Promise<ProviderId[]> {
  const mine = await providerLink(userId, provider);
  if (!mine) throw errors.notFound(`${provider} is not linked to this account`);
  // A password never goes away once set, so reading it outside the transaction is safe.
  const hasPassword = typeof (await getUser(userId))?.passwordHash === 'string';
  const outcome = await removeLink(userId, mine, hasPassword);
  if (outcome === 'last') throw errors.cannotUnlink();
  if (outcome === 'gone') throw errors.notFound(`${provider} is not linked to this account`);
  return linkedProviders(userId);
}
