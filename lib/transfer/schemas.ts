import * as z from 'zod';
import { queryInteger } from '#lib/http/validation.ts';
import { proofSchema } from '#lib/zk/groth16.ts';

/**
 * The /api/transfer routes' inputs and answers (before the flat envelope). Field elements are
 * decimal strings; amounts are decimal strings of smallest units (lamports).
 */
const required = (what: string) => ({ error: (i: { input: unknown }) => (i.input === undefined ? 'is required' : `must be ${what}`) });
const decimal = z.string(required('a string')).regex(/^\d{1,78}$/, 'must be a decimal string of at most 78 digits');
const poolId = z.string(required('a string')).min(1).max(64);
const address = z.string(required('a string')).min(1).max(64);

export const poolParams = z.object({ id: poolId });
export const leavesQuery = z.object({ from: queryInteger(0, 2 ** 20).default(0) });
export const depositInput = z.object({ pool: poolId, walletId: z.string(required('a string')).min(1).max(64), commitment: decimal });
export const withdrawInput = z.object({
  pool: poolId,
  proof: proofSchema,
  root: decimal,
  nullifierHash: decimal,
  recipient: address,
  relayerFee: z
    .string(required('a string'))
    .regex(/^\d{1,20}$/, 'must be a decimal string of smallest units')
    .optional(),
});
export const jobParams = z.object({ id: z.string().min(1).max(64) });
export const nullifierParams = z.object({ hash: decimal });

const poolView = z.object({
  id: z.string(),
  token: z.string(),
  mint: z.string().optional(),
  decimals: z.number().int(),
  denomination: z.string(),
  formatted: z.string(),
  address: z.string(),
  root: z.string(),
  size: z.number().int(),
});
export type PoolView = z.infer<typeof poolView>;

export const poolsResponse = z.object({ pools: z.array(poolView) });
export const poolResponse = poolView;
export const leavesResponse = z.object({ pool: z.string(), from: z.number().int(), leaves: z.array(z.string()), size: z.number().int(), root: z.string() });

const depositView = z.object({
  id: z.string(),
  pool: z.string(),
  walletId: z.string(),
  commitment: z.string(),
  status: z.enum(['pending', 'transferred', 'complete']),
  txHash: z.string(),
  leafIndex: z.number().int().optional(),
  root: z.string().optional(),
  createdAt: z.string(),
});
export type DepositView = z.infer<typeof depositView>;
export const depositResponse = z.object({ deposit: depositView });
export const depositsResponse = z.object({ deposits: z.array(depositView) });

export const withdrawResponse = z.object({ jobId: z.string(), status: z.enum(['pending', 'paid']) });
export const jobResponse = z.object({
  jobId: z.string(),
  pool: z.string(),
  status: z.enum(['pending', 'paid']),
  recipient: z.string(),
  amount: z.string(),
  fee: z.string(),
  txHash: z.string().optional(),
  attempts: z.number().int(),
  createdAt: z.string(),
  paidAt: z.string().optional(),
});
export const nullifierResponse = z.object({ nullifierHash: z.string(), spent: z.boolean(), spentAt: z.string().optional(), jobId: z.string().optional() });
