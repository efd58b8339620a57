/**
 * OAuth login by redirect in the browser terminal. The page itself goes through the API's
 * authorization-code flow (`/api/zkauth/login` → the provider → `/api/zkauth/callback/<id>`),
 * which sets the session cookie on this origin and sends the browser back to the terminal at a
 * relative path (`/?login=<id>`, which the server's safeRedirect accepts); a failed callback
 * comes back with `&error=<code>`. No DOM here, so it is tested in Node.
 */
import { ShroudError } from '#lib/client/api.ts';

/** The query parameter the terminal is sent back with, naming the provider it went to. */
export const RETURN_PARAM = 'login';

export interface Provider {
  id: string;
  name: string;
  enabled: boolean;
}

export interface OAuthLogin {
  provider: string;
  /** Pre-selects an account at the provider (`login_hint`); the local provider signs it in. */
  hint?: string;
}

/**
 * `login --provider <id> [account]` (or `--provider=<id>`): an OAuth login; null for any other
 * line (a password login goes to the shared command definition).
 */
export function oauthLoginOf(words: string[]): OAuthLogin | null {
  const w = words[0] === 'shroud' ? words.slice(1) : words;
  if (w[0] !== 'login') return null;
  let provider: string | undefined;
  const rest: string[] = [];
  for (let i = 1; i < w.length; i++) {
    const word = w[i]!;
    if (word === '--provider') {
      provider = w[++i];
      if (provider === undefined) throw new ShroudError('USAGE', 0, 'login: --provider needs a value (login --provider <id>)');
    } else if (word.startsWith('--provider=')) provider = word.slice('--provider='.length);
    else rest.push(word);
  }
  if (provider === undefined) return null;
  const unknownOption = rest.find((x) => x.startsWith('-'));
  if (unknownOption) throw new ShroudError('USAGE', 0, `login: ${unknownOption} does not go with --provider`);
  if (rest.length > 1) throw new ShroudError('USAGE', 0, 'login: --provider takes at most one account name');
  return { provider, hint: rest[0] };
}

/** Where the page goes: the API's login start, coming back to the terminal on this origin. */
export function loginUrl(login: OAuthLogin): string {
  const q = new URLSearchParams({ provider: login.provider, redirect: `/?${RETURN_PARAM}=${encodeURIComponent(login.provider)}` });
  if (login.hint !== undefined) q.set('login_hint', login.hint);
  return `/api/zkauth/login?${q}`;
}

/** The provider asked for, if it can be used now; else a USAGE error naming those that can. */
export function checkProvider(id: string, providers: Provider[]): Provider {
  const found = providers.find((p) => p.id === id);
  if (found?.enabled) return found;
  const usable = providers.filter((p) => p.enabled).map((p) => p.id);
  const offer = usable.length ? `: use one of ${usable.join(', ')}` : ': none is configured on this server';
  throw new ShroudError('USAGE', 0, `${found ? `provider '${id}' is not enabled` : `unknown provider '${id.slice(0, 40)}'`}${offer}`);
}

/** What `login` with no arguments says: a password login, and the providers to sign in with. */
export function loginChoices(providers: Provider[]): string {
  const usable = providers.filter((p) => p.enabled);
  const lines = ['sign in with a password:  login <username>'];
  for (const p of usable) lines.push(`sign in with ${p.name}:${' '.repeat(Math.max(1, 10 - p.name.length))}login --provider ${p.id}`);
  if (!usable.length) lines.push('(no OAuth provider is configured on this server)');
  return lines.join('\n');
}

/** How the page was sent back by the callback, and the URL to show instead (without the marks). */
export interface Return {
  provider?: string;
  /** The callback's error code (`AUTH_FAILED`), when the login did not complete. */
  error?: string;
  cleanUrl: string;
}

/** Reads `?login=<id>` / `?error=<code>` from the page's URL; null when the page was just opened. */
export function returnOf(url: string): Return | null {
  const u = new URL(url);
  const provider = u.searchParams.get(RETURN_PARAM) ?? undefined;
  const error = u.searchParams.get('error') ?? undefined;
  if (provider === undefined && error === undefined) return null;
  u.searchParams.delete(RETURN_PARAM);
  u.searchParams.delete('error');
  // Only short, plain values are echoed into the terminal (the URL is anyone's to write).
  const plain = (v: string | undefined) => (v !== undefined && /^[A-Za-z0-9_.-]{1,40}$/.test(v) ? v : v === undefined ? undefined : '?');
  return { provider: plain(provider), error: plain(error), cleanUrl: `${u.pathname}${u.search}${u.hash}` };
}

/** Why a failed return failed, as the terminal says it (after the error code). */
export function returnError(r: Return): string {
  const at = r.provider ? ` with ${r.provider}` : '';
  return `the sign-in${at} did not complete (refused at the provider, expired, or started in another browser); try login --provider again`;
}
