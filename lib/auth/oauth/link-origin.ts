import { config } from '#lib/config.ts';
import { errors } from '#lib/errors.ts';

/**
 * Account-link CSRF. `GET /api/zkauth/link` is a top-level navigation, and the session cookie
 * (SameSite=Lax) travels with top-level navigations from any site: a page elsewhere could send a
 * signed-in victim there with its own provider account waiting at the provider, and the callback
 * would link the attacker's provider account to the victim's account (the attacker then signs in
 * as the victim). The choice made here: a link flow is *started* only by a request that shows it
 * comes from this site, and refused (403 FORBIDDEN) otherwise, before any state exists, so the
 * callback of such a flow can never link anything.
 *
 * What shows it, in order (browsers set these headers; a page cannot forge them):
 * 1. an `Origin` or `Referer` naming an origin that is not trusted → refused;
 * 2. `Sec-Fetch-Site: cross-site` → refused (whatever the Referer says);
 * 3. `Sec-Fetch-Site: same-origin` or `none` (typed, bookmarked) → allowed;
 * 4. otherwise (`same-site`, or an old browser without Fetch Metadata) an `Origin` or `Referer`
 *    naming a trusted origin is required: a request that shows nothing (a page with
 *    `referrerpolicy="no-referrer"` in a browser without Fetch Metadata) is refused.
 *
 * Trusted origins come from configuration only: the API's own (PUBLIC_BASE_URL, else the domain
 * API Gateway was called on) and the origins listed in CORS_ORIGINS — a `*` there trusts nothing
 * for this purpose.
 */
export function trustedOrigins(ownBaseUrl: string, settings = config): string[] {
  const own = new URL(ownBaseUrl).origin;
  return [own, ...settings.CORS_ORIGINS.filter((o) => o !== '*').map((o) => o.replace(/\/$/, ''))];
}

const originOf = (value: string): string => {
  try {
    return new URL(value).origin; // "null" for opaque origins (sandboxed frames, data: URLs)
  } catch {
    return 'null';
  }
};

/**
 * Why this request may not start a link flow, or undefined when it may. `nativeApp`: a start with
 * an S256 challenge and a loopback redirect (`shroud provider link`, lib/auth/oauth/handoff.ts).
 * Such a flow links nothing at its callback: the link is made only when the app that holds the
 * verifier trades the code with the session of the same account, which no other site can send
 * (a cross-site POST carries no SameSite=Lax cookie). So it may show no origin (a terminal sends
 * none); what a browser says about a cross-site start is still refused.
 */
export function linkStartProblem(headers: Record<string, string | undefined>, trusted: readonly string[], nativeApp = false): string | undefined {
  const claimed = [headers.origin, headers.referer].filter((v): v is string => !!v).map(originOf);
  if (claimed.some((o) => !trusted.includes(o))) return 'account linking was started from another site';
  const site = headers['sec-fetch-site']?.toLowerCase();
  if (site === 'cross-site') return 'account linking was started by a cross-site request';
  if (site === 'same-origin' || site === 'none') return undefined;
  if (claimed.length || nativeApp) return undefined;
  return 'account linking must be started from a page of this site (the request names no origin)';
}

/** Throws 403 FORBIDDEN when the request may not start a link flow. */
export function requireSameSiteLinkStart(headers: Record<string, string | undefined>, ownBaseUrl: string, nativeApp = false): void {
  const problem = linkStartProblem(headers, trustedOrigins(ownBaseUrl), nativeApp);
  if (problem) throw errors.forbidden(problem);
}
