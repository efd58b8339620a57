import { savePendingAuth, STATE_TTL_SECONDS, takePendingAuth, type PendingAuthItem } from '#lib/data/oauth-states.ts';
import { isProviderId, type ProviderId } from './providers.ts';

/**
 * One pending authorization: what the callback needs (PKCE verifier, nonce, where to go, whose
 * account to link), kept for 10 minutes under the SHA-256 of `state` (lib/data/oauth-states.ts)
 * and usable once.
 */
export { STATE_TTL_SECONDS };

export type PendingAuth = PendingAuthItem & { provider: ProviderId };

export async function saveState(state: string, pending: PendingAuth): Promise<void> {
  await savePendingAuth(state, pending);
}

/**
 * The pending authorization of `state`, removed atomically; null when unknown, expired or already
 * used. `nativeLinkOnly`: taken only when it is a native app's link (the caller has no cookie for it).
 */
export async function consumeState(state: string, nativeLinkOnly = false): Promise<PendingAuth | null> {
  if (!state || state.length > 256) return null;
  const pending = await takePendingAuth(state, nativeLinkOnly);
  if (!pending) return null;
  const { provider } = pending;
  // A provider this version does not know (an item from an older or newer deployment): unusable.
  return isProviderId(provider) ? { ...pending, provider } : null;
}
