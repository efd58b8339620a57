import { AsyncLocalStorage } from 'node:async_hooks';
import type { Envelope } from './groups.ts';

/**
 * The request's Idempotency-Key claim, set by endpoint.ts around its handler, so that a
 * value move the handler sends is bound to it (lib/moves/journal.ts). A module of its own: every Lambda
 * loads it, none needs the chain SDKs for it.
 */
export const requestIdempotency = new AsyncLocalStorage<{ scope: string; key: string; fingerprint: string; owner: string; envelope: Envelope } | undefined>();
