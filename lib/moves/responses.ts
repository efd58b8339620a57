import * as z from 'zod';

/** 202: sent, and the chain has not settled it yet (journal.ts); the wallet and the Idempotency-Key stay bound to it until it has. */
export const submittedAnswer = z.object({ status: z.literal('submitted'), txHash: z.string(), explorerUrl: z.string() });
