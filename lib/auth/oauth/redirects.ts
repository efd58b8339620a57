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

/** The target with `error=<code>` added to its query (relative targets stay relative). */
export function withError(target: string, code: string): string {
  const relative = target.startsWith('/');
  const u = new URL(target, 'http://relative.invalid');
  u.searchParams.set('error', code);
  return relative ? `${u.pathname}${u.search}${u.hash}` : u.href;
}
