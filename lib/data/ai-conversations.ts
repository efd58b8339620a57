import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { clock } from '#lib/clock.ts';
import { db, tableName } from './client.ts';
import { decoder, deleteItem, isConditionalFailure, listPartition, putItem, readItem, ttlIn } from './items.ts';

/**
 * The assistant's conversations, in the owner's partition (so a query can only ever see the
 * caller's own), each item kept CONVERSATION_TTL_SECONDS after its last message:
 *
 *   AICONV#<userId> / CONV#<conversationId>                         Conversation
 *   AICONV#<userId> / MSG#<conversationId>#<createdAt>#<messageId>  AiMessage
 *   AICONV#<userId> / FEEDBACK#<conversationId>#<messageId>         feedback (one per message, last one wins)
 *   AIBUDGET#<userId> / <yyyy-mm-dd>                                tokens used that UTC day (TTL 2 days)
 */
export const CONVERSATION_TTL_SECONDS = 30 * 24 * 3600;

export const conversationSchema = z.object({
  id: z.string(),
  title: z.string(),
  backend: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
  messageCount: z.number(),
});
export type Conversation = z.infer<typeof conversationSchema>;
const conversationDecoder = decoder('ai conversation', conversationSchema);

const citationSchema = z.object({ document: z.string(), section: z.string(), link: z.string() });
const messageSchema = z.object({
  id: z.string(),
  conversationId: z.string(),
  role: z.enum(['user', 'assistant']),
  content: z.string(),
  citations: z.array(citationSchema).optional(),
  suggestions: z.array(z.object({ command: z.string(), description: z.string() })).optional(),
  tools: z.array(z.object({ name: z.string(), summary: z.string() })).optional(),
  createdAt: z.string(),
});
export type AiMessage = z.infer<typeof messageSchema>;
const messageDecoder = decoder('ai message', messageSchema);

const partition = (userId: string) => `AICONV#${userId}`;
const conversationKey = (userId: string, id: string) => ({ pk: partition(userId), sk: `CONV#${id}` });

export const getConversation = (userId: string, id: string): Promise<Conversation | undefined> => readItem(conversationKey(userId, id), conversationDecoder);

/** The caller's conversations, most recently updated first. */
export async function listConversations(userId: string): Promise<Conversation[]> {
  const all = await listPartition(partition(userId), conversationDecoder, { prefix: 'CONV#' });
  return all.sort((a, b) => b.updatedAt.localeCompare(a.updatedAt));
}

export const listMessages = (userId: string, conversationId: string): Promise<AiMessage[]> =>
  listPartition(partition(userId), messageDecoder, { prefix: `MSG#${conversationId}#` });

/** Creates the conversation or moves its `updatedAt` and TTL forward; counts the message. */
export async function touchConversation(userId: string, c: Pick<Conversation, 'id' | 'title' | 'backend'>): Promise<void> {
  const now = clock.now().toISOString();
  await db.send(
    new UpdateCommand({
      TableName: tableName,
      Key: conversationKey(userId, c.id),
      UpdateExpression:
        'SET #id = :id, #title = if_not_exists(#title, :title), #backend = :backend, #created = if_not_exists(#created, :now), #updated = :now, #ttl = :ttl ADD #count :one',
      ExpressionAttributeNames: {
        '#id': 'id',
        '#title': 'title',
        '#backend': 'backend',
        '#created': 'createdAt',
        '#updated': 'updatedAt',
        '#ttl': 'ttl',
        '#count': 'messageCount',
      },
      ExpressionAttributeValues: { ':id': c.id, ':title': c.title, ':backend': c.backend, ':now': now, ':ttl': ttlIn(CONVERSATION_TTL_SECONDS), ':one': 1 },
    }),
  );
}

export async function putMessage(userId: string, m: AiMessage): Promise<void> {
  await putItem({ pk: partition(userId), sk: `MSG#${m.conversationId}#${m.createdAt}#${m.id}`, ...m, ttl: ttlIn(CONVERSATION_TTL_SECONDS) });
}

/** Deletes the conversation, its messages and feedback; false when the caller has no such conversation. */
export async function deleteConversation(userId: string, id: string): Promise<boolean> {
  if (!(await getConversation(userId, id))) return false;
  const pk = partition(userId);
  const messages = await listMessages(userId, id);
  for (const m of messages) {
    await deleteItem({ pk, sk: `MSG#${id}#${m.createdAt}#${m.id}` });
    await deleteItem({ pk, sk: `FEEDBACK#${id}#${m.id}` });
  }
  await deleteItem(conversationKey(userId, id));
  return true;
}

export async function putFeedback(userId: string, f: { conversationId: string; messageId: string; rating: 'up' | 'down'; comment?: string }): Promise<void> {
  await putItem({
    pk: partition(userId),
    sk: `FEEDBACK#${f.conversationId}#${f.messageId}`,
    ...f,
    createdAt: clock.now().toISOString(),
    ttl: ttlIn(CONVERSATION_TTL_SECONDS),
  });
}

// ---- the daily token budget -----------------------------------------------------------------

const budgetKey = (userId: string, day: string) => ({ pk: `AIBUDGET#${userId}`, sk: day });

/**
 * Adds `tokens` to the caller's count for `day`, only while the count is below `limit` (a
 * conditional ADD: concurrent requests cannot both pass a spent budget). Returns false when the
 * budget was already spent; a request that starts under the limit may end a little over it.
 */
export async function spendTokens(userId: string, day: string, tokens: number, limit: number): Promise<boolean> {
  try {
    await db.send(
      new UpdateCommand({
        TableName: tableName,
        Key: budgetKey(userId, day),
        UpdateExpression: 'ADD #n :n SET #ttl = if_not_exists(#ttl, :ttl)',
        ConditionExpression: 'attribute_not_exists(#n) OR #n < :limit',
        ExpressionAttributeNames: { '#n': 'tokens', '#ttl': 'ttl' },
        ExpressionAttributeValues: { ':n': tokens, ':limit': limit, ':ttl': ttlIn(2 * 24 * 3600) },
      }),
    );
    return true;
  } catch (e) {
    if (isConditionalFailure(e)) return false;
    throw e;
  }
}
