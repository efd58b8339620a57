import { destroySession, loadSession } from '#lib/data/sessions.ts';
import { deleteStarkKey } from '#lib/data/stark-keys.ts';
import { currentProof, revoke } from './history.ts';

/**
 * Ends a session and revokes its STARK proof, in our records (revocation is off-chain). Its own
 * module, free of the prover and chain B's SDK, because every login and logout function calls it.
 */
export async function logoutSession(cookieId: string | undefined): Promise<{ proofRevoked: boolean }> {
  if (!cookieId || cookieId.length > 128) return { proofRevoked: false };
  const found = await loadSession(cookieId);
  if (found.state === 'none') return { proofRevoked: false };
  const hash = found.session.hash;
  const { key } = await currentProof(hash);
  const proofRevoked = key?.currentProofId ? await revoke(key.currentProofId, 'logout') : false;
  await deleteStarkKey(hash);
  await destroySession(hash);
  return { proofRevoked };
}
