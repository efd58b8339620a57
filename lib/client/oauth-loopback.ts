/**
 * OAuth login for native apps (RFC 8252) over the typed client: the app keeps a PKCE-style
 * verifier, starts `/api/zkauth/login` with its S256 challenge and a loopback redirect, waits for
 * the browser to come back to the loopback with a one-time code, and trades code + verifier at
 * `POST /api/zkauth/exchange` for the session cookie (kept by the client's jar). The listener is
 * the host's (Node: lib/cli/loopback.ts); WebCrypto only here.
 */
import { ShroudError, type Answer, type ShroudClient } from './api.ts';

/** A one-shot HTTP listener on 127.0.0.1 (or [::1]) on a port the system picked. */
export interface LoopbackListener {
  /** `http://127.0.0.1:<port>/callback` */
  redirectUri: string;
  /** The query the browser came back with (`code`, or `error`); rejects when it does not come in time. */
  result: Promise<URLSearchParams>;
  close(): Promise<void>;
}

const base64url = (bytes: Uint8Array) =>
  btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');

/** 32 random bytes as 43 base64url characters (RFC 7636 §4.1). */
export const newVerifier = (): string => base64url(crypto.getRandomValues(new Uint8Array(32)));

/** S256: base64url(SHA-256(verifier)). */
export async function challengeOf(verifier: string): Promise<string> {
  return base64url(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier))));
}

export interface LoopbackLoginOptions {
  provider: string;
  /** `login_hint`: pre-selects an account at the provider. */
  hint?: string;
  listener: LoopbackListener;
  /** Shows the sign-in URL to the person (opens a browser, prints it). */
  show(url: string): Promise<void> | void;
}

/** The query that starts a login or a link: the provider, the loopback, the verifier's S256 challenge. */
async function startQuery(o: LoopbackLoginOptions, verifier: string) {
  return {
    provider: o.provider,
    redirect: o.listener.redirectUri,
    code_challenge: await challengeOf(verifier),
    code_challenge_method: 'S256',
    ...(o.hint ? { login_hint: o.hint } : {}),
  };
}

/** Signs the client in through the browser; the session ends up in the client's cookie jar. */
export async function loopbackLogin(client: ShroudClient, o: LoopbackLoginOptions): Promise<Answer<'zkauthExchange'>> {
  const verifier = newVerifier();
  try {
    const url = client.urlOf('zkauthLogin', {
      query: await startQuery(o, verifier),
    });
    await o.show(url.href);
    return await codeBack(client, o.listener, verifier);
  } finally {
    await o.listener.close();
  }
}

/** The code the browser brought back to the loopback, traded with the verifier. */
async function codeBack(client: ShroudClient, listener: LoopbackListener, verifier: string): Promise<Answer<'zkauthExchange'>> {
  const back = await listener.result;
  const error = back.get('error');
  if (error)
    throw new ShroudError(
      /^[A-Z_]{1,40}$/.test(error) ? error : 'AUTH_FAILED',
      401,
      'the sign-in did not complete (refused at the provider, or expired): try again',
    );
  const code = back.get('code');
  if (!code) throw new ShroudError('AUTH_FAILED', 401, 'the browser came back without a code');
  return await client.api.zkauthExchange({ body: { code, code_verifier: verifier } });
}

/**
 * Links a provider to the signed-in account through the browser: the client itself starts
 * `/api/zkauth/link` (with its session and its challenge) and shows the provider's page it is sent
 * to; the browser comes back to the loopback with a code; the exchange with the verifier and the
 * same session makes the link (the session stays as it is).
 */
export async function loopbackLink(client: ShroudClient, o: LoopbackLoginOptions): Promise<Answer<'zkauthExchange'>> {
  const verifier = newVerifier();
  try {
    const start = await client.api.zkauthLink({
      query: await startQuery(o, verifier),
    });
    const location = (start as { redirect?: string }).redirect;
    if (!location) throw new ShroudError('AUTH_FAILED', 502, 'the server did not send the provider’s sign-in page');
    await o.show(location);
    return await codeBack(client, o.listener, verifier);
  } finally {
    await o.listener.close();
  }
}
