/**
 * Where the browser goes after login: a relative path on the API's own origin, or an absolute URL
 * on one of the configured origins (`OAUTH_REDIRECT_ORIGINS`). Anything else is refused, so the
 * login endpoint cannot be used as an open redirect (`//evil`, `/\evil`, `https://evil`,
 * `javascript:`…). Returns the normalised target, or null.
 */
export function safeRedirect(raw: string | undefined, allowedOrigins: readonly string[]): string | null {
  if (raw === undefined || raw === '') return '/';
  if (raw.length > 2048) return null;
  // Control characters and backslashes: browsers strip or reinterpret them (`/\evil` → `//evil`).
  if (/[\u0000-\u0020\u007f-\u009f\\]/.test(raw)) return null;
  if (raw.startsWith('/')) {
    if (raw.startsWith('//')) return null; // protocol-relative: another host
    const base = 'http://relative.invalid';
    let u: URL;
    try {
      u = new URL(raw, base);
    } catch {
      return null;
    }
    const out = `${u.pathname}${u.search}${u.hash}`;
    // Dot segments can normalise into a protocol-relative path (`/a/..//evil` → `//evil`).
    if (u.origin !== base || out.startsWith('//')) return null;
    return out;
  }
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return null;
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') return null;
  if (u.username || u.password) return null;
  if (!allowedOrigins.includes(u.origin)) return null;
  return u.href;
}

/**
 * A native app's loopback redirect (RFC 8252 §7.3): `http://127.0.0.1:<port>/…` or
 * `http://[::1]:<port>/…`, any port, nothing else (not `localhost`, which DNS or a hosts file may
 * send elsewhere, §8.3; no other spelling of the address, no credentials, no fragment). Only the
 * loopback login takes it, and only with a code challenge. Returns the normalised target, or null.
 */
export function loopbackRedirect(raw: string | undefined): string | null {
  if (raw === undefined || raw.length > 2048) return null;
  if (/[\u0000-\u0020\u007f-\u009f\\#]/.test(raw)) return null;
  // The literal prefix as well as the parsed host: the URL parser turns `http://2130706433:1/` into 127.0.0.1.
  const literal = /^http:\/\/(?:127\.0\.0\.1|\[::1\]):(\d{1,5})\//.exec(raw);
  const port = Number(literal?.[1]);
  if (!literal || port < 1 || port > 65535) return null;
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return null;
  }
  if (u.protocol !== 'http:' || (u.hostname !== '127.0.0.1' && u.hostname !== '[::1]')) return null;
  if (u.username || u.password) return null;
  return u.href;
}

/** The target with `name=value` added to its query (relative targets stay relative). */
export function withParam(target: string, name: string, value: string): string {
  const relative = target.startsWith('/');
  const u = new URL(target, 'http://relative.invalid');
  u.searchParams.set(name, value);
  return relative ? `${u.pathname}${u.search}${u.hash}` : u.href;
}

/** The target with `error=<code>` added to its query. */
export const withError = (target: string, code: string): string => withParam(target, 'error', code);
