import { randomBytes, timingSafeEqual } from 'node:crypto';
import { CodeChallengeMethod, Discord, generateCodeVerifier, generateState, GitHub, Google, OAuth2Client, Twitter, type OAuth2Tokens } from 'arctic';
import { sessionCookie } from '#lib/auth/identity.ts';
import { createSession, destroySession, hashSessionId, type Session } from '#lib/data/sessions.ts';
import { sessionKey } from '#lib/auth/stark-session/index.ts';
import { clock } from '#lib/clock.ts';
import { config } from '#lib/config.ts';
import { serializeCookie } from '#lib/http/cookies.ts';
import { errors, isAppError } from '#lib/errors.ts';
import { logger } from '#lib/log.ts';
import { accountFor, linkProvider } from './accounts.ts';
import { getJson, githubPrimaryEmail, parseUserinfo, verifyIdToken, type Profile } from './profile.ts';
import { isProviderId, oauthConfig, type ProviderConfig, type ProviderId } from './providers.ts';
import { CODE_CHALLENGE, handOff } from './handoff.ts';
import { loopbackRedirect, safeRedirect, withError } from './redirects.ts';
import { consumeState, saveState, STATE_TTL_SECONDS, type PendingAuth } from './state.ts';

/**
 * The authorization-code flow of `/api/zkauth/login|link|callback`, with arctic.
 *
 * Start: a random `state`, a PKCE verifier and (OpenID providers) a nonce go to DynamoDB for 10
 * minutes (`state.ts`); `state` also goes to an HTTP-only cookie scoped to the callback path, so
 * a callback is accepted only in the browser that started it (no login CSRF), then 302 to the
 * provider. Callback: the cookie must match `state`, the pending record is taken once, the code
 * is exchanged (with the verifier), the profile is read (verified ID token for OpenID providers,
 * the provider's user endpoint otherwise), and the account is found by subject or created.
 */
export const STATE_COOKIE = 'shroud_oauth_state';
export const CALLBACK_PREFIX = '/api/zkauth/callback/';

const stateCookie = (value: string, maxAgeSeconds: number) => serializeCookie(STATE_COOKIE, value, { maxAgeSeconds, path: `${CALLBACK_PREFIX.slice(0, -1)}` });
const clearStateCookie = () => stateCookie('', 0);

/** The API's own origin: PUBLIC_BASE_URL, else the host API Gateway was called on. */
export function baseUrlOf(domainName: string | undefined): string {
  const base = config.PUBLIC_BASE_URL;
  if (base) return base.replace(/\/$/, '');
  if (!domainName) throw errors.internal();
  return `https://${domainName}`;
}

export const callbackUrl = (base: string, provider: ProviderId) => `${base}${CALLBACK_PREFIX}${provider}`;

interface Client {
  url(state: string, codeVerifier: string): URL;
  exchange(code: string, codeVerifier: string): Promise<OAuth2Tokens>;
}

/** arctic's class for real endpoints; its generic OAuth2Client (PKCE S256) when they are overridden. */
function clientFor(p: ProviderConfig, redirectUri: string): Client {
  const id = p.clientId!;
  const secret = p.clientSecret!;
  if (p.endpoints) {
    const { authorize, token } = p.endpoints;
    const c = new OAuth2Client(id, secret, redirectUri);
    return {
      url: (state, v) => c.createAuthorizationURLWithPKCE(authorize, state, CodeChallengeMethod.S256, v, p.scopes),
      exchange: (code, v) => c.validateAuthorizationCode(token, code, v),
    };
  }
  switch (p.id) {
    case 'google': {
      const c = new Google(id, secret, redirectUri);
      return { url: (s, v) => c.createAuthorizationURL(s, v, p.scopes), exchange: (code, v) => c.validateAuthorizationCode(code, v) };
    }
    case 'github': {
      // arctic 3.7's GitHub class has no PKCE: state (with its cookie binding) protects the flow.
      const c = new GitHub(id, secret, redirectUri);
      return { url: (s) => c.createAuthorizationURL(s, p.scopes), exchange: (code) => c.validateAuthorizationCode(code) };
    }
    case 'x': {
      const c = new Twitter(id, secret, redirectUri);
      return { url: (s, v) => c.createAuthorizationURL(s, v, p.scopes), exchange: (code, v) => c.validateAuthorizationCode(code, v) };
    }
    case 'discord': {
      const c = new Discord(id, secret, redirectUri);
      return { url: (s, v) => c.createAuthorizationURL(s, v, p.scopes), exchange: (code, v) => c.validateAuthorizationCode(code, v) };
    }
  }
}

/** A usable provider, or the error the API names: unknown 400 INVALID_INPUT, disabled PROVIDER_UNAVAILABLE. */
export function providerFor(id: string): ProviderConfig {
  if (!isProviderId(id)) throw errors.invalidInput(`provider: unknown provider '${id.slice(0, 40)}'`);
  const p = oauthConfig().providers[id];
  if (!p.enabled) throw errors.providerUnavailable(`provider '${id}' is not enabled`);
  return p;
}

/** `login_hint`: pre-selects an account at providers that support it (the local provider picks its subject by it). */
export const LOGIN_HINT = /^[A-Za-z0-9._@+-]{1,64}$/;

export interface StartInput {
  provider: string;
  redirect?: string;
  loginHint?: string;
  mode: 'login' | 'link';
  userId?: string;
  domainName?: string;
  /** A native app's loopback login (handoff.ts): its S256 challenge; `redirect` must then be a loopback URL. */
  codeChallenge?: string;
  codeChallengeMethod?: string;
}

/** Where a login may go back to: a loopback URL with a code challenge (RFC 8252), else safeRedirect's targets. */
function redirectOf(input: StartInput, base: string, redirectOrigins: string[]): string {
  if (input.codeChallenge === undefined) {
    if (input.codeChallengeMethod !== undefined) throw errors.invalidInput('code_challenge_method: only with code_challenge');
    const redirect = safeRedirect(input.redirect, [...redirectOrigins, new URL(base).origin]);
    if (redirect === null) throw errors.invalidInput('redirect: must be a relative path or a URL on an allowed origin');
    return redirect;
  }
  if ((input.codeChallengeMethod ?? 'S256') !== 'S256') throw errors.invalidInput('code_challenge_method: S256 only');
  if (!CODE_CHALLENGE.test(input.codeChallenge)) throw errors.invalidInput('code_challenge: 43 base64url characters (S256)');
  const redirect = loopbackRedirect(input.redirect);
  if (redirect === null) throw errors.invalidInput('redirect: with code_challenge, a loopback URL http://127.0.0.1:<port>/… or http://[::1]:<port>/…');
  return redirect;
}

export async function startAuthorization(input: StartInput): Promise<{ location: string; cookies: string[] }> {
  const p = providerFor(input.provider);
  const base = baseUrlOf(input.domainName);
  const cfg = oauthConfig();
  const redirect = redirectOf(input, base, cfg.redirectOrigins);
  if (input.loginHint !== undefined && !LOGIN_HINT.test(input.loginHint)) throw errors.invalidInput('login_hint: 1–64 of A-Z a-z 0-9 . _ @ + -');
  const state = generateState();
  const codeVerifier = generateCodeVerifier();
  const nonce = p.openid ? randomBytes(24).toString('base64url') : undefined;
  const pending: PendingAuth = {
    provider: p.id,
    codeVerifier,
    nonce,
    redirect,
    mode: input.mode,
    userId: input.userId,
    handoffChallenge: input.codeChallenge,
    createdAt: clock.nowMs(),
  };
  await saveState(state, pending);
  const url = clientFor(p, callbackUrl(base, p.id)).url(state, codeVerifier);
  if (nonce) url.searchParams.set('nonce', nonce);
  if (input.loginHint) {
    // Overridden endpoints speak OpenID (login_hint); the real ones use their own name, if any.
    const param = p.endpoints ? 'login_hint' : p.hintParam;
    if (param) url.searchParams.set(param, input.loginHint);
  }
  return { location: url.href, cookies: [stateCookie(state, STATE_TTL_SECONDS)] };
}

async function readProfile(p: ProviderConfig, tokens: OAuth2Tokens, pending: PendingAuth): Promise<Profile> {
  if (p.openid) {
    const claims = await verifyIdToken(tokens.idToken(), p, pending.nonce ?? '');
    return parseUserinfo(p.id, claims);
  }
  const accessToken = tokens.accessToken();
  const profile = parseUserinfo(p.id, await getJson(p.userinfoUrl!, { authorization: `Bearer ${accessToken}` }));
  if (p.id === 'github' && !profile.email && !p.endpoints) profile.email = await githubPrimaryEmail(accessToken).catch(() => undefined);
  return profile;
}

const same = (a: string, b: string) => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};

export interface CallbackInput {
  provider: string;
  query: Record<string, string | undefined>;
  cookies: Record<string, string>;
  sessionCookieName: string;
  session: Session | null;
  domainName?: string;
}

export type CallbackOutcome =
  | { ok: true; location: string; cookies: string[]; userId: string; created: boolean }
  | { ok: false; location: string; cookies: string[]; message: string };

class Refused extends Error {}

/** Never throws: every failure is an outcome that sends the browser back with `error=AUTH_FAILED`. */
export async function completeAuthorization(input: CallbackInput): Promise<CallbackOutcome> {
  let redirect = '/';
  const cookies = [clearStateCookie()];
  try {
    const state = input.query.state ?? '';
    const bound = input.cookies[STATE_COOKIE];
    // A native app's link was started by the app, not this browser, so no cookie binds it here: it
    // links nothing until the app trades the code with its verifier and its session (handoff.ts).
    // Any other state is taken only by the browser whose cookie holds it.
    const cookieBound = !!state && !!bound && same(state, bound);
    const pending = await consumeState(state, !cookieBound);
    if (!pending) throw new Refused(cookieBound ? 'unknown, expired or already used state' : 'the state does not match this browser');
    const nativeLink = pending.mode === 'link' && pending.handoffChallenge !== undefined;
    redirect = pending.redirect;
    if (pending.provider !== input.provider) throw new Refused('callback for another provider');
    if (input.query.error) throw new Refused(`the provider answered ${String(input.query.error).slice(0, 60)}`);
    const code = input.query.code;
    if (!code || code.length > 4096) throw new Refused('no authorization code');
    const p = providerFor(pending.provider);
    const tokens = await clientFor(p, callbackUrl(baseUrlOf(input.domainName), p.id)).exchange(code, pending.codeVerifier);
    const profile = await readProfile(p, tokens, pending);

    if (nativeLink)
      return {
        ok: true,
        location: await handOff(redirect, pending.handoffChallenge!, pending.userId!, p.id, profile, 'link'),
        cookies,
        userId: pending.userId!,
        created: false,
      };
    if (pending.mode === 'link') {
      if (!input.session || input.session.userId !== pending.userId) throw new Refused('not signed in as the account that asked to link');
      await linkProvider(pending.userId!, p.id, profile);
      return { ok: true, location: redirect, cookies, userId: pending.userId!, created: false };
    }
    const { userId, created } = await accountFor(p.id, profile);
    // A native app's login: the session is made when the app trades the code (handoff.ts), not in this browser.
    if (pending.handoffChallenge)
      return { ok: true, location: await handOff(redirect, pending.handoffChallenge, userId, p.id, profile), cookies, userId, created };
    // A fresh session id at every login; the previous session of this browser ends.
    const previous = input.cookies[input.sessionCookieName];
    if (previous && previous.length <= 128) await destroySession(hashSessionId(previous));
    const { id, session, maxAgeSeconds } = await createSession(userId, `oauth:${p.id}`, {
      provider: p.id,
      email: profile.email,
      name: profile.name,
      avatar: profile.avatar,
    });
    await sessionKey(id, session);
    cookies.push(sessionCookie(id, maxAgeSeconds));
    return { ok: true, location: redirect, cookies, userId, created };
  } catch (e) {
    const message = e instanceof Refused || isAppError(e) ? e.message : 'the provider login could not be completed';
    if (e instanceof Refused || isAppError(e)) logger.info('oauth callback refused', { provider: input.provider.slice(0, 20), reason: message });
    else logger.warn('oauth callback failed', { provider: input.provider.slice(0, 20), error: e as Error });
    return { ok: false, location: withError(redirect, 'AUTH_FAILED'), cookies, message };
  }
}

/** Whether the client asked for JSON over HTML (`Accept`, with q-values). */
export function prefersJson(accept: string | undefined): boolean {
  if (!accept) return false;
  const q = (type: string) => {
    let best = -1;
    for (const part of accept.split(',')) {
      const [t, ...params] = part.trim().toLowerCase().split(';');
      if (t !== type) continue;
      const qp = params.map((x) => x.trim()).find((x) => x.startsWith('q='));
      best = Math.max(best, qp ? Number(qp.slice(2)) || 0 : 1);
    }
    return best;
  };
  const json = q('application/json');
  return json > 0 && json >= q('text/html');
}
