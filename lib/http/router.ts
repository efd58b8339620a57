import type { Route } from './route.ts';

export type Match = { kind: 'route'; route: Route; params: Record<string, string> } | { kind: 'method'; allow: string[] } | { kind: 'none' };

const split = (p: string) => p.replace(/\/+$/, '').split('/').slice(1);

/** Literal segments outrank parameters, as API Gateway picks the most specific route. */
function score(route: Route, segments: string[]): { params: Record<string, string>; literals: number } | null {
  const pattern = split(route.path);
  if (pattern.length !== segments.length) return null;
  const params: Record<string, string> = {};
  let literals = 0;
  for (let i = 0; i < pattern.length; i++) {
    const want = pattern[i]!;
    const got = segments[i]!;
    if (want.startsWith(':')) {
      if (!got) return null;
      try {
        params[want.slice(1)] = decodeURIComponent(got);
      } catch {
        return null;
      }
    } else if (want === got) literals++;
    else return null;
  }
  return { params, literals };
}

/** Matches requests against a route table (the one in `functions/routes.ts`). */
export const createRouter = (routes: readonly Route[]) => ({ match: (method: string, path: string) => matchRoute(routes, method, path) });

export function matchRoute(routes: readonly Route[], method: string, path: string): Match {
  const segments = split(path);
  let best: { route: Route; params: Record<string, string>; literals: number } | undefined;
  const allow = new Set<string>();
  for (const route of routes) {
    const s = score(route, segments);
    if (!s) continue;
    if (route.method !== method.toUpperCase()) {
      allow.add(route.method);
      continue;
    }
    if (!best || s.literals > best.literals) best = { route, ...s };
  }
  if (best) return { kind: 'route', route: best.route, params: best.params };
  if (allow.size) return { kind: 'method', allow: [...allow].sort() };
  return { kind: 'none' };
}

/** API Gateway's path syntax: `/api/storage/{cid}`. */
export const gatewayPath = (path: string) => path.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}');
