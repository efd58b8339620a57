import bcrypt from 'bcryptjs';

/** The contract: the password is stored only as a bcrypt hash, 10 rounds (test/unit/auth/passwords.test.ts). */
export const BCRYPT_COST = 10;
/** bcrypt reads at most 72 bytes; longer passwords are refused rather than silently truncated. */
export const MAX_PASSWORD_BYTES = 72;

/**
 * A cost-10 hash of a random string nobody knows. Logins for unknown usernames compare against
 * it, so that "no such user" costs the same bcrypt work as "wrong password" and the two answers
 * cannot be told apart by their timing. Precomputed so that a cold start does not pay for it.
 */
const DUMMY_HASH = '$2b$10$0U8ZC012dAoWWyuxf4Wp0.3q0j.u647OvD.OID6BbWKpTitWEljQe';

export const hashPassword = (password: string): Promise<string> => bcrypt.hash(password, BCRYPT_COST);

/** Compares against the user's hash, or against the dummy hash when there is no user: same work either way. */
export async function verifyPassword(password: string, hash: string | undefined): Promise<boolean> {
  const ok = await bcrypt.compare(password, hash ?? DUMMY_HASH);
  return ok && hash !== undefined;
}
