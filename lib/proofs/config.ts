import * as z from 'zod';
import { readConfig } from '#lib/config.ts';

/**
 * Proof-history settings, read once at cold start.
 * - `PROOF_HISTORY_RETENTION_DAYS`: how long a record is kept (its DynamoDB ttl); `0` keeps
 *   records until the user deletes them. Default 365.
 */
const schema = z.object({
  PROOF_HISTORY_RETENTION_DAYS: z.coerce.number().int().min(0).max(3650).default(365),
});

export type ProofsConfig = z.infer<typeof schema>;

export const readProofsConfig = (env: NodeJS.ProcessEnv = process.env): ProofsConfig => readConfig(schema, env);

export const proofsConfig: ProofsConfig = readProofsConfig();
export const retentionSeconds = (): number => proofsConfig.PROOF_HISTORY_RETENTION_DAYS * 86_400;
