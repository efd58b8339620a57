/** A browser for the CLI's OAuth tests: what a person's browser does with the sign-in URL `shroud login --provider` prints. */
import { applySetCookies } from '../support/runtime.ts';

/** A browser: follows redirects by hand, one cookie jar per origin; returns every URL it went to. */
/** `stopAt`: an origin not to visit (a loopback no one listens on): the browse ends with it in `visited`. */
export async function browse(start: string, stopAt?: string): Promise<{ visited: URL[]; status: number; body: string }> {
  const jars = new Map<string, Map<string, string>>();
  const visited: URL[] = [];
  let target = new URL(start);
  for (let hop = 0; hop < 10; hop++) {
    visited.push(target);
    if (target.origin === stopAt) return { visited, status: 0, body: '' };
    const jar = jars.get(target.origin) ?? new Map<string, string>();
    jars.set(target.origin, jar);
    const headers: Record<string, string> = { accept: 'text/html' };
    if (jar.size) headers.cookie = [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
    const res = await fetch(target, { headers, redirect: 'manual' });
    applySetCookies(jar, res);
    const location = res.headers.get('location');
    if (res.status < 300 || res.status >= 400 || !location) return { visited, status: res.status, body: await res.text() };
    await res.body?.cancel();
    target = new URL(location, target);
  }
  throw new Error(`too many redirects: ${visited.join(' → ')}`);
}
