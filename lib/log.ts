import { Logger } from '@aws-lambda-powertools/logger';
import { config } from '#lib/config.ts';

/**
 * Structured JSON logs. What may be logged is decided by the callers: request line, status,
 * timing, ids, codes. Never bodies, cookies, passwords, keys or proofs' private inputs.
 */
export const logger = new Logger({ serviceName: config.SERVICE_NAME, persistentKeys: { stage: config.STAGE } });
