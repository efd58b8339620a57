import { config } from '#lib/config.ts';

export const SESSION_COOKIE = 'shroud_session';
/** Identifies an anonymous client (bug reports before sign-in). Not a credential. */
export const CLIENT_COOKIE = 'shroud_client';

/** Cookies of a payload-2.0 event: API Gateway puts them in `event.cookies`, one `name=value` each. */
export function parseCookies(cookies: string[] | undefined, header?: string): Record<string, string> {
  const out: Record<string, string> = {};
  const parts = [...(cookies ?? []), ...(header ? header.split(';') : [])];
  for (const part of parts) {
    const i = part.indexOf('=');
    if (i <= 0) continue;
    const name = part.slice(0, i).trim();
    const value = part.slice(i + 1).trim();
    if (!(name in out)) {
      try {
        out[name] = decodeURIComponent(value);
      } catch {
        out[name] = value;
      }
    }
  }
  return out;
}

export interface CookieOptions {
  maxAgeSeconds?: number;
  httpOnly?: boolean;
  path?: string;
}

/** A Set-Cookie value. HTTP-only, SameSite=Lax and Secure (unless configured off for plain-http localhost). */
export function serializeCookie(name: string, value: string, opts: CookieOptions = {}): string {
  const parts = [`${name}=${encodeURIComponent(value)}`, `Path=${opts.path ?? '/'}`];
  if (opts.maxAgeSeconds !== undefined) parts.push(`Max-Age=${Math.max(0, Math.floor(opts.maxAgeSeconds))}`);
  if (opts.httpOnly ?? true) parts.push('HttpOnly');
  if (config.COOKIE_SECURE) parts.push('Secure');
  parts.push('SameSite=Lax');
  return parts.join('; ');
}

export const clearCookie = (name: string): string => serializeCookie(name, '', { maxAgeSeconds: 0 });
