import * as z from 'zod';

/** The compression routes' answers (before the flat envelope), for the OpenAPI document. Amounts in smallest units, as strings. */
const amount = z.string().regex(/^[0-9]+$/);
const decimals = z.number().int();
export const compressNativeAnswer = z.object({ txHash: z.string(), compressedAmount: amount, decimals });
export const decompressAnswer = z.object({ txHash: z.string(), decompressedAmount: amount });
export const compressTokenAnswer = z.object({ txHash: z.string(), mint: z.string(), compressedAmount: amount, decimals });
export const transferAnswer = z.object({ txHash: z.string(), from: z.string(), to: z.string(), amount });
export const createTokenAnswer = z.object({ mintAddress: z.string(), txHash: z.string() });
export const mintToAnswer = z.object({ txHash: z.string(), mint: z.string(), mintedAmount: amount });
export const compressedBalanceAnswer = z.object({ balance: amount, formatted: z.string(), decimals });
export const compressedTokenBalanceAnswer = z.object({ mint: z.string(), balance: amount, formatted: z.string(), decimals });
export { submittedAnswer } from '#lib/moves/responses.ts';
