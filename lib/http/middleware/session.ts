import { loadSession as loadFromTable, type SessionLookup } from '#lib/data/sessions.ts';
import { errors } from '#lib/errors.ts';
import { parseCookies, SESSION_COOKIE } from '../cookies.ts';
import type { HttpMiddleware } from './state.ts';

/**
 * Reads the session cookie and loads the session, once per request, for routes that use one
 * (`auth` other than `none`). The rate limit then counts per user when signed in.
 */
export const sessionLoader = (load: (id: string | undefined) => Promise<SessionLookup> = loadFromTable): HttpMiddleware => ({
  before: async (request) => {
    const state = request.internal;
    state.cookies = parseCookies(request.event.cookies, state.headers.cookie);
    if (state.route.auth === 'none') return;
    const found = await load(state.cookies[SESSION_COOKIE]);
    state.sessionState = found.state;
    if (found.state === 'active') {
      state.session = found.session;
      state.client.key = `user:${found.session.userId}`;
    }
  },
});

/** `auth: session` routes: 401 without a live session (SESSION_EXPIRED when it has run out). Runs after the rate limit, so anonymous attempts count too. */
export const sessionRequired = (): HttpMiddleware => ({
  before: (request) => {
    const state = request.internal;
    if (state.route.auth !== 'session' || state.session) return;
    throw state.sessionState === 'expired' ? errors.sessionExpired() : errors.unauthenticated();
  },
});
