import {
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
  type QueryCommandInput,
  type TransactWriteCommandInput,
} from '@aws-sdk/lib-dynamodb';
import type { z } from 'zod';
import { clock } from '#lib/clock.ts';
import { db, tableName } from './client.ts';
import { retryOnConflict } from './retry.ts';

/**
 * What every repository shares: the live-item rule, the conditions that go with it, typed
 * decoding, and the few raw operations. Each entity's keys, item type and TTL rule live in its
 * own module beside this one (users.ts, sessions.ts, files.ts, …).
 */
export type Key = { pk: string; sk: string };
export type Item = Key & { ttl?: number; [k: string]: unknown };
/** An item as DynamoDB returns it, before decoding. */
export type RawItem = Record<string, unknown>;

// ---- the live-item rule ---------------------------------------------------------------------

/** DynamoDB removes expired items only eventually (up to days later): an item past its ttl is gone. */
export function isLive(item: { ttl?: unknown } | undefined, nowSeconds = clock.nowSeconds()): boolean {
  if (!item) return false;
  return typeof item.ttl !== 'number' || item.ttl > nowSeconds;
}

/** Epoch seconds `seconds` from now, for the `ttl` attribute. */
export const ttlIn = (seconds: number): number => clock.nowSeconds() + Math.ceil(seconds);

/** A condition for a write, with the names and values it uses. */
export interface Condition {
  ConditionExpression: string;
  ExpressionAttributeNames?: Record<string, string>;
  ExpressionAttributeValues?: Record<string, unknown>;
}

/** The key is free: no item, or one past its ttl (which reads treat as absent). */
export const absentOrExpired = (now = clock.nowSeconds()): Condition => ({
  ConditionExpression: 'attribute_not_exists(pk) OR #ttl <= :now',
  ExpressionAttributeNames: { '#ttl': 'ttl' },
  ExpressionAttributeValues: { ':now': now },
});

/** The item is there and live: exactly the negation of `absentOrExpired`. */
export const presentAndLive = (now = clock.nowSeconds()): Condition => ({
  ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(#ttl) OR #ttl > :now)',
  ExpressionAttributeNames: { '#ttl': 'ttl' },
  ExpressionAttributeValues: { ':now': now },
});

function mergeInto(target: Record<string, unknown>, source: Record<string, unknown> | undefined, what: string): void {
  for (const [k, v] of Object.entries(source ?? {})) {
    if (k in target && target[k] !== v) throw new Error(`condition ${what} ${k} is given two meanings`);
    target[k] = v;
  }
}

/** Conditions joined with AND; their names and values merged (they must not disagree). */
export function allOf(...conditions: Condition[]): Condition {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  for (const c of conditions) {
    mergeInto(names, c.ExpressionAttributeNames, 'name');
    mergeInto(values, c.ExpressionAttributeValues, 'value');
  }
  return {
    ConditionExpression: conditions.map((c) => `(${c.ConditionExpression})`).join(' AND '),
    ...(Object.keys(names).length ? { ExpressionAttributeNames: names } : {}),
    ...(Object.keys(values).length ? { ExpressionAttributeValues: values } : {}),
  };
}

/** Conditions joined with OR; their names and values merged (they must not disagree). */
export function anyOf(...conditions: Condition[]): Condition {
  const joined = allOf(...conditions);
  return { ...joined, ConditionExpression: conditions.map((c) => `(${c.ConditionExpression})`).join(' OR ') };
}

/** A condition with the names and values the rest of its command (update expression…) uses. */
export function withCondition(c: Condition, rest: { names?: Record<string, string>; values?: Record<string, unknown> }): Required<Condition> {
  const names: Record<string, string> = { ...c.ExpressionAttributeNames };
  const values: Record<string, unknown> = { ...c.ExpressionAttributeValues };
  mergeInto(names, rest.names, 'name');
  mergeInto(values, rest.values, 'value');
  return { ConditionExpression: c.ConditionExpression, ExpressionAttributeNames: names, ExpressionAttributeValues: values };
}

// ---- typed decoding -------------------------------------------------------------------------

/** A stored item that does not have its entity's shape: a bug or a corrupted table, never a client error. */
export class MalformedItemError extends Error {
  constructor(
    readonly entity: string,
    readonly problems: string[],
  ) {
    // Field names and what was expected only: never the values (they may be secrets).
    super(`malformed ${entity} item: ${problems.join('; ')}`);
    this.name = 'MalformedItemError';
  }
}

export interface Decoder<T> {
  readonly entity: string;
  /** The item's fields as `T` (table attributes `pk`, `sk`, `gsi1*`, `ttl` left out), or MalformedItemError. */
  decode(item: RawItem): T;
}

/** A decoder from a zod object schema; z.object drops the attributes it does not name. */
export function decoder<S extends z.ZodType>(entity: string, schema: S): Decoder<z.output<S>> {
  return {
    entity,
    decode(item) {
      const out = schema.safeParse(item);
      if (out.success) return out.data;
      throw new MalformedItemError(
        entity,
        out.error.issues.map((i) => `${i.path.map(String).join('.') || '(item)'}: ${i.message}`),
      );
    },
  };
}

// ---- raw operations -------------------------------------------------------------------------

/** The live item at `key`, undecoded (repositories decode it; see `readItem`). */
export async function getItem(key: Key, consistent = true): Promise<RawItem | undefined> {
  const out = await db.send(new GetCommand({ TableName: tableName, Key: key, ConsistentRead: consistent }));
  return isLive(out.Item) ? out.Item : undefined;
}

/** The live item at `key`, decoded; undefined when absent or expired. */
export async function readItem<T>(key: Key, as: Decoder<T>, consistent = true): Promise<T | undefined> {
  const item = await getItem(key, consistent);
  return item ? as.decode(item) : undefined;
}

/** Put that fails with ConditionalCheckFailedException when the key exists (and is live). */
export async function putNew(item: Item): Promise<void> {
  await db.send(new PutCommand({ TableName: tableName, Item: item, ...absentOrExpired() }));
}

export async function putItem(item: Item): Promise<void> {
  await db.send(new PutCommand({ TableName: tableName, Item: item }));
}

export async function deleteItem(key: Key): Promise<void> {
  await db.send(new DeleteCommand({ TableName: tableName, Key: key }));
}

/** A query's pages, one request each, expired items dropped: a caller may stop early. */
export async function* queryPages(input: Omit<QueryCommandInput, 'TableName'>): AsyncGenerator<RawItem[]> {
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const out = await db.send(new QueryCommand({ ...input, TableName: tableName, ExclusiveStartKey }));
    yield (out.Items ?? []).filter((it) => isLive(it));
    ExclusiveStartKey = out.LastEvaluatedKey;
  } while (ExclusiveStartKey);
}

/** Query that pages through every result and drops expired items. */
export async function queryAll(input: Omit<QueryCommandInput, 'TableName'>): Promise<RawItem[]> {
  const items: RawItem[] = [];
  for await (const page of queryPages(input)) items.push(...page);
  return items;
}

/** Items of one partition, optionally those whose sort key begins with `prefix`. */
export function queryPartition(pk: string, opts: { prefix?: string; newestFirst?: boolean; index?: 'gsi1' } = {}): Promise<RawItem[]> {
  const pkName = opts.index ? 'gsi1pk' : 'pk';
  const skName = opts.index ? 'gsi1sk' : 'sk';
  return queryAll({
    IndexName: opts.index,
    KeyConditionExpression: opts.prefix ? '#pk = :pk AND begins_with(#sk, :prefix)' : '#pk = :pk',
    ExpressionAttributeNames: opts.prefix ? { '#pk': pkName, '#sk': skName } : { '#pk': pkName },
    ExpressionAttributeValues: opts.prefix ? { ':pk': pk, ':prefix': opts.prefix } : { ':pk': pk },
    ScanIndexForward: !opts.newestFirst,
  });
}

/** A partition's live items, decoded. */
export async function listPartition<T>(pk: string, as: Decoder<T>, opts: Parameters<typeof queryPartition>[1] = {}): Promise<T[]> {
  return (await queryPartition(pk, opts)).map((i) => as.decode(i));
}

export const isConditionalFailure = (e: unknown): boolean =>
  e instanceof Error && (e.name === 'ConditionalCheckFailedException' || e.name === 'TransactionCanceledException');

// ---- transactions ---------------------------------------------------------------------------

export type TransactItems = NonNullable<TransactWriteCommandInput['TransactItems']>;

/** The per-item reasons of a cancelled transaction, or undefined for any other error. */
function cancellationCodes(e: unknown): (string | undefined)[] | undefined {
  if (!(e instanceof Error) || e.name !== 'TransactionCanceledException') return undefined;
  const reasons: unknown = Reflect.get(e, 'CancellationReasons');
  if (!Array.isArray(reasons)) return [];
  return reasons.map((r: unknown) => {
    const code: unknown = typeof r === 'object' && r !== null ? Reflect.get(r, 'Code') : undefined;
    return typeof code === 'string' ? code : undefined;
  });
}

/**
 * Runs a TransactWriteItems; returns -1 on success or the index of the item whose condition
 * failed. A cancellation for a conflict with a concurrent transaction is retried (retry.ts: six
 * tries, full jitter): the retry then sees the winner's items and fails its condition cleanly.
 */
export async function transactWrite(items: TransactItems): Promise<number> {
  return retryOnConflict(async () => {
    try {
      await db.send(new TransactWriteCommand({ TransactItems: items }));
      return -1;
    } catch (e) {
      const codes = cancellationCodes(e);
      if (!codes) throw e;
      const failed = codes.indexOf('ConditionalCheckFailed');
      if (failed >= 0) return failed;
      throw e; // a conflict is retried; any other cancellation ends it
    }
  }, TRANSACT_RETRY);
}

const TRANSACT_RETRY = { attempts: 6, baseMs: 15, capMs: 200 };
