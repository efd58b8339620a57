import * as z from 'zod';
import { getDeposit } from '#lib/data/shielded-pools.ts';
import * as orders from '#lib/data/swap-orders.ts';
import type { OrderRecord } from '#lib/data/swap-orders.ts';
import { errors } from '#lib/errors.ts';
import { viewOrder } from './http.ts';

/**
 * The swap routes that only read DynamoDB (the caller's orders, one order, the one-time
 * addresses): apart from swap.ts, so their functions do not load the chain A libraries that
 * quoting and executing need (test/infra/lambda-assets.test.ts).
 */

export async function listOrders(userId: string) {
  return { orders: (await orders.listOrders(userId)).map(viewOrder) };
}

export async function getOrder(userId: string, id: string) {
  const o = z.uuid().safeParse(id).success ? await orders.getOrder(userId, id) : undefined;
  if (!o) throw errors.notFound('order not found');
  return { order: viewOrder(await withDepositNow(o)) };
}

/** A deposit whose append was left to the retry job: the order shows where it is now. */
async function withDepositNow(o: OrderRecord): Promise<OrderRecord> {
  const s = o.shielded;
  if (!s?.depositId || s.leafIndex !== undefined) return o;
  const d = await getDeposit(o.userId, s.depositId);
  return d?.status === 'complete' && d.leafIndex !== undefined ? { ...o, shielded: { ...s, leafIndex: d.leafIndex, root: d.root! } } : o;
}

export async function listOneTimeAddresses(userId: string) {
  return { addresses: (await orders.listOneTimeAddresses(userId)).map((a) => ({ address: a.address, orderId: a.orderId, createdAt: a.createdAt })) };
}
