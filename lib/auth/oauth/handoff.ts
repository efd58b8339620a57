import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import * as z from 'zod';
import { publicUser, sessionCookie } from '#lib/auth/identity.ts';
import { sessionKey } from '#lib/auth/stark-session/index.ts';
import { clock } from '#lib/clock.ts';
import { saveHandoff, takeHandoff } from '#lib/data/oauth-handoffs.ts';
import { createSession, type Session } from '#lib/data/sessions.ts';
import { getUser } from '#lib/data/users.ts';
import { errors } from '#lib/errors.ts';
import { linkProvider } from './accounts.ts';
import type { Profile } from './profile.ts';
import { isProviderId, PROVIDER_IDS, type ProviderId } from './providers.ts';
import { withParam } from './redirects.ts';

/**
 * The loopback login of native apps (RFC 8252, `shroud login --provider`): the app keeps a
 * verifier and starts the login with its S256 challenge and a loopback redirect; the callback
 * sends the browser to the loopback with a one-time `code` (never a session id in a URL); the app
 * trades code + verifier for the session at `POST /api/zkauth/exchange`. A code lives 60 s, works
 * once (taken by a conditional delete, even with a wrong verifier), and only with the verifier of
 * the challenge it was bound to: a code caught from a URL is worth nothing.
 *
 * A native app's link (`shroud provider link`) goes the same way with `purpose: 'link'`: the app,
 * signed in, starts `/api/zkauth/link` with its challenge; the callback links nothing and hands
 * the code to the loopback; the exchange links the provider's subject to the account only when it
 * comes with the verifier and a session of that same account, and leaves the session as it is.
 */

/** RFC 7636: S256 challenges are 43 base64url characters; verifiers 43–128 unreserved characters. */
export const CODE_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;
export const CODE_VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;

export const s256 = (verifier: string): string => createHash('sha256').update(verifier, 'ascii').digest('base64url');

/** Where the callback sends the browser: the app's loopback URL with a fresh handoff code. */
export async function handOff(
  redirect: string,
  challenge: string,
  userId: string,
  provider: ProviderId,
  profile: Profile,
  purpose: 'login' | 'link' = 'login',
): Promise<string> {
  const code = randomBytes(32).toString('base64url');
  const link = purpose === 'link' ? { purpose, subject: profile.subject } : {};
  await saveHandoff(code, { userId, provider, challenge, email: profile.email, name: profile.name, avatar: profile.avatar, ...link, createdAt: clock.nowMs() });
  return withParam(redirect, 'code', code);
}

export const exchangeInput = z.object({
  code: z.string().min(1).max(128),
  code_verifier: z.string().regex(CODE_VERIFIER, 'code_verifier: 43–128 of A-Z a-z 0-9 - . _ ~ (RFC 7636)'),
});

export const exchangeResponse = z.object({
  provider: z.enum(PROVIDER_IDS),
  /** true: the code was a link's (`shroud provider link`), the provider is now linked and the session unchanged; false: a login, the cookie is the new session. */
  linked: z.boolean(),
  user: z.object({ id: z.string(), username: z.string().nullable(), zkId: z.string().nullable(), identityPublicKey: z.string().nullable() }),
});

const same = (a: string, b: string) => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};

/**
 * What a handoff code stands for: a login's new session (with its cookie), or a link made on the
 * caller's own account (no cookie: the session stays); 400 INVALID_HANDOFF for anything else.
 */
export async function exchangeHandoff(input: z.infer<typeof exchangeInput>, caller: Pick<Session, 'userId'> | null = null) {
  const handoff = await takeHandoff(input.code);
  if (!handoff) throw errors.invalidHandoff('unknown, expired or already used handoff code');
  if (!same(s256(input.code_verifier), handoff.challenge)) throw errors.invalidHandoff('this code was not handed to this verifier (the code is now spent)');
  const user = await getUser(handoff.userId);
  if (!user || !isProviderId(handoff.provider)) throw errors.invalidHandoff('the account of this login no longer exists');
  if (handoff.purpose === 'link') {
    if (caller?.userId !== user.id) throw errors.invalidHandoff('a link code is traded by the account that asked to link, signed in (the code is now spent)');
    await linkProvider(user.id, handoff.provider, { subject: handoff.subject!, email: handoff.email, name: handoff.name, avatar: handoff.avatar });
    return { answer: { provider: handoff.provider, linked: true, user: publicUser(user) }, cookie: undefined };
  }
  const { id, session, maxAgeSeconds } = await createSession(user.id, `oauth:${handoff.provider}`, {
    provider: handoff.provider,
    email: handoff.email,
    name: handoff.name,
    avatar: handoff.avatar,
  });
  await sessionKey(id, session);
  return { answer: { provider: handoff.provider, linked: false, user: publicUser(user) }, cookie: sessionCookie(id, maxAgeSeconds) };
}
