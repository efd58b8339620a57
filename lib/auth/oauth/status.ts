import type { Session } from '#lib/data/sessions.ts';
import { proofStatus } from '#lib/auth/stark-session/index.ts';
import { getUser } from '#lib/data/users.ts';
import { errors } from '#lib/errors.ts';

/**
 * `GET /api/zkauth/status`, the Auth status object. Signed out: only `authenticated: false`; an
 * expired session: 401 SESSION_EXPIRED (so a client can tell "log in again" from "never logged
 * in"). A password session is reported too, with `provider: 'password'`, the username as `name`,
 * and `email`/`avatar` null unless the account has them.
 */
export async function authStatus(state: 'none' | 'expired' | 'active', session: Session | null) {
  if (state === 'expired') throw errors.sessionExpired();
  const user = session ? await getUser(session.userId) : undefined;
  if (!session || !user) return { authenticated: false };
  const oauth = session.method.startsWith('oauth:');
  const text = (v: unknown) => (typeof v === 'string' && v ? v : null);
  return {
    authenticated: true,
    provider: oauth ? (text(session.provider) ?? session.method.slice('oauth:'.length)) : 'password',
    email: text(oauth ? session.email : undefined) ?? text(user.email),
    name: text(oauth ? session.name : undefined) ?? text(user.name) ?? text(user.username),
    avatar: text(oauth ? session.avatar : undefined) ?? text(user.avatar),
    ...(await proofStatus(session)),
  };
}
