import type { DeleteCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db } from './client.ts';
import { isConditionalFailure } from './items.ts';

/**
 * One conditional write (put, update or delete with a ConditionExpression): true when it was
 * written, false when its condition did not hold; any other failure is thrown. The one way the
 * value-move journal (value-moves.ts) and the leases (leases.ts) decide who wins a race.
 */
export async function conditionalWrite(command: PutCommand | UpdateCommand | DeleteCommand): Promise<boolean> {
  try {
    await (db.send as (c: PutCommand | UpdateCommand | DeleteCommand) => Promise<unknown>)(command);
    return true;
  } catch (e) {
    if (isConditionalFailure(e)) return false;
    throw e;
  }
}
