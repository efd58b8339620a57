import { listOpenBridges } from '#lib/data/bridge-transfers.ts';
import { logger } from '#lib/log.ts';

/**
 * The relayer's pass (the steps: ./relay-steps.ts). A pass lists the open records; the chain
 * libraries the steps use (chain A, chain B, the L1) load only when there is one, so the scheduled
 * function's cold start, every minute with nothing open most of the time, reads DynamoDB only.
 */
const steps = () => import('./relay-steps.ts');

/** Takes one record as far as it can go now (./relay-steps.ts). */
export async function relayBridge(userId: string, id: string): Promise<void> {
  return (await steps()).relayBridge(userId, id);
}

export interface RelayReport {
  /** Open records looked at. */
  records: number;
  /** Steps that threw (logged; retried on the next pass). */
  errors: number;
}

/** Every open record once; one record's failure is logged and does not stop the others. */
export async function relayOnce(): Promise<RelayReport> {
  const open = await listOpenBridges();
  let errors = 0;
  for (const { userId, id } of open) {
    try {
      await relayBridge(userId, id);
    } catch (e) {
      errors++;
      logger.warn('bridge relay step failed; retried on the next pass', { bridgeId: id, error: e as Error });
    }
  }
  return { records: open.length, errors };
}
