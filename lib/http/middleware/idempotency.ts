import { createHash } from 'node:crypto';
import * as records from '#lib/data/idempotency.ts';
import { errors } from '#lib/errors.ts';
import { logger } from '#lib/log.ts';
import { rawBodyOf } from '../raw-body.ts';
import type { Event, HttpMiddleware, HttpRequest } from './state.ts';

const KEY = /^[\x21-\x7e]{1,255}$/;

/**
 * What makes two requests "the same": method, path with its parameters, query and body. A
 * multipart body is hashed with its boundary left out, since a client that rebuilds the same form
 * for a retry gets a fresh boundary.
 */
export function requestFingerprint(event: Event, contentType: string | undefined): string {
  const hash = createHash('sha256');
  hash.update(`${event.requestContext?.http?.method ?? ''} ${event.rawPath}?${event.rawQueryString ?? ''}\n`);
  const body = rawBodyOf(event);
  const boundary = /^multipart\/form-data/i.test(contentType ?? '') ? /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType!) : null;
  const marker = boundary ? Buffer.from(boundary[1] ?? boundary[2]!) : null;
  if (!marker) return hash.update(body).digest('hex');
  let at = 0;
  for (let next = body.indexOf(marker, at); next !== -1; next = body.indexOf(marker, at)) {
    hash.update(body.subarray(at, next)).update('\u0000boundary\u0000');
    at = next + marker.length;
  }
  return hash.update(body.subarray(at)).digest('hex');
}

/**
 * `Idempotency-Key` on the routes that create a resource or move value (`idempotent` in the route
 * table): the first answer is kept and a retry with the same key and request gets it back, marked
 * `Idempotent-Replayed: true`, without running the handler again; the same key with another request
 * is 422; a retry while the first attempt still runs is 409 with Retry-After. The key is scoped to
 * the client (the user when signed in) and the route. Without the header a request runs as usual.
 */
export const idempotency = (store: Pick<typeof records, 'claim' | 'complete' | 'release'> = records): HttpMiddleware => {
  const release = async (request: HttpRequest) => {
    const claim = request.internal.idempotency;
    if (claim && !request.internal.replayed) await store.release(claim.scope, claim.key, claim.owner);
  };
  return {
    before: async (request) => {
      const state = request.internal;
      const key = state.headers['idempotency-key'];
      if (!state.route.idempotent || key === undefined) return;
      if (!KEY.test(key)) throw errors.invalidInput('Idempotency-Key: 1 to 255 visible ASCII characters');
      const scope = `${state.client.key}|${state.route.method} ${state.route.path}`;
      const fingerprint = requestFingerprint(request.event, state.headers['content-type']);
      // The lock outlives the function's own timeout, so a crashed attempt frees the key soon after.
      const out = await store.claim(scope, key, fingerprint, (state.route.timeout ?? 10) + 5);
      if (out.kind === 'mismatch') throw errors.idempotencyKeyReused();
      if (out.kind === 'in_progress') throw errors.idempotencyInProgress(out.retryAfter);
      if (out.kind === 'replay') {
        if (!out.response) throw errors.idempotencyInProgress(1);
        state.replayed = { ...out.response, headers: { ...out.response.headers, 'idempotent-replayed': 'true' } };
        return;
      }
      state.idempotency = { scope, key, fingerprint, owner: out.owner };
    },
    after: async (request) => {
      const state = request.internal;
      const claim = state.idempotency;
      if (!claim || state.replayed) return;
      const res = request.response;
      // Only a success is the answer to keep: after a refusal the work was not done, so a retry may do it.
      if (!res || (res.statusCode ?? 200) >= 400) return release(request);
      try {
        await store.complete(claim.scope, claim.key, claim.owner, {
          statusCode: res.statusCode ?? 200,
          headers: Object.fromEntries(Object.entries(res.headers ?? {}).map(([k, v]) => [k, String(v)])),
          body: res.body ?? '',
          isBase64Encoded: res.isBase64Encoded,
        });
      } catch (e) {
        // The key is no longer this attempt's: the journal settled the transaction it was bound to
        // (and kept that answer), or another attempt took it over. What this attempt did is still
        // its answer; a 500 here would report a failure for work that was done.
        if (e instanceof records.ClaimLost) {
          logger.warn('idempotency key no longer held by this attempt; answered without keeping the answer', { route: request.internal.route.path });
          return;
        }
        // The store failed (DynamoDB past its retries): the work was done all the same (a value move
        // may have landed). An error now would release the key (onError) and a retry with it would do
        // the work again: a second transaction. The answer stands; the key stays claimed — a value
        // move's is bound to its transaction and never taken over (a retry gets 409 in progress while the
        // transaction's hold lasts, then the answer kept at binding), any other's lapses with its lock.
        logger.error('idempotency answer not kept; answered, the key left claimed', { route: request.internal.route.path, error: e as Error });
      }
    },
    onError: release,
  };
};
