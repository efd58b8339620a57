import * as z from 'zod';
import { readConfig } from '#lib/config.ts';

/**
 * Shielded-transfer settings, read once at cold start.
 * - `TRANSFER_ROOT_HISTORY`: how many of a pool's latest roots a withdrawal may prove against
 *   (default 100; a proof built on an older root is refused with UNKNOWN_ROOT).
 * - `TRANSFER_RETRY_AFTER_SECONDS`: how old an unpaid payout, an unfinished deposit or an
 *   unsettled value move must be before the retry job takes it up (default 30). At least 30: a
 *   route runs at most 29 s (functions/routes.ts), so a younger one may still be its request's,
 *   whose own send the job must not overtake (docs/value-moves.md).
 */
const schema = z.object({
  TRANSFER_ROOT_HISTORY: z.coerce.number().int().min(2).max(1000).default(100),
  TRANSFER_RETRY_AFTER_SECONDS: z.coerce.number().int().min(30).max(3600).default(30),
});

export type TransferConfig = z.infer<typeof schema>;

export const readTransferConfig = (env: NodeJS.ProcessEnv = process.env): TransferConfig => readConfig(schema, env);

export const transferConfig: TransferConfig = readTransferConfig();

/** A payout or deposit lease: longer than one confirmation, short enough to retry soon after a crash. */
export const LEASE_MS = 60_000;

/** The test token's decimals (test-token.ts mints it): here, not there, so that the pools' table (pools.ts) does not load the token programs at import. */
export const TEST_TOKEN_DECIMALS = 6;
