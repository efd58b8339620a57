import { DeleteCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from './client.ts';
import { isConditionalFailure, withCondition, type Condition, type Item, type Key, type RawItem } from './items.ts';

/**
 * The conditional-write helper of the concurrency kit (docs/concurrency.md): one way to write
 * "only if" and learn whether the condition held. A failed condition is an answer (false /
 * undefined), never an exception; any other failure is thrown. Leases (leases.ts), claims and
 * the value-move journal (value-moves.ts) decide their races with it.
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

/** Puts `item` only if `condition` holds on the item it would replace; false when it did not. */
export const putIf = (item: Item, condition: Condition): Promise<boolean> =>
  conditionalWrite(new PutCommand({ TableName: tableName, Item: item, ...condition }));

/** Deletes the item at `key` only if `condition` holds; false when it did not (or nothing was there to satisfy it). */
export const deleteIf = (key: Key, condition: Condition): Promise<boolean> =>
  conditionalWrite(new DeleteCommand({ TableName: tableName, Key: key, ...condition }));

/** An update as clauses (joined by `updateExpression`), with the names and values they use. */
export interface Update {
  set?: string[];
  remove?: string[];
  add?: string[];
  names?: Record<string, string>;
  values?: Record<string, unknown>;
}

/** Updates joined into one: their clauses concatenated, their names and values merged. */
export function mergeUpdates(...updates: Update[]): Update {
  const out: Required<Update> = { set: [], remove: [], add: [], names: {}, values: {} };
  for (const u of updates) {
    out.set.push(...(u.set ?? []));
    out.remove.push(...(u.remove ?? []));
    out.add.push(...(u.add ?? []));
    Object.assign(out.names, u.names);
    Object.assign(out.values, u.values);
  }
  return out;
}

/** `SET … REMOVE … ADD …` of an update. */
export function updateExpression(u: Update): string {
  return [
    ['SET', u.set],
    ['REMOVE', u.remove],
    ['ADD', u.add],
  ]
    .filter((c): c is [string, string[]] => Array.isArray(c[1]) && c[1].length > 0)
    .map(([verb, clauses]) => `${verb} ${clauses.join(', ')}`)
    .join(' ');
}

/**
 * Updates the item at `key` only if `condition` holds: the item as written (all its attributes),
 * or undefined when the condition did not hold.
 */
export async function updateIf(key: Key, update: Update, condition: Condition): Promise<RawItem | undefined> {
  try {
    const out = await db.send(
      new UpdateCommand({
        TableName: tableName,
        Key: key,
        UpdateExpression: updateExpression(update),
        ...compact(withCondition(condition, { names: update.names, values: update.values })),
        ReturnValues: 'ALL_NEW',
      }),
    );
    return out.Attributes ?? {};
  } catch (e) {
    if (isConditionalFailure(e)) return undefined;
    throw e;
  }
}

/** DynamoDB refuses empty name or value maps: they are left out. */
function compact(c: Required<Condition>): Condition {
  return {
    ConditionExpression: c.ConditionExpression,
    ...(Object.keys(c.ExpressionAttributeNames).length ? { ExpressionAttributeNames: c.ExpressionAttributeNames } : {}),
    ...(Object.keys(c.ExpressionAttributeValues).length ? { ExpressionAttributeValues: c.ExpressionAttributeValues } : {}),
  };
}
