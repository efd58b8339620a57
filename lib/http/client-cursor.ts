import { BadCursor } from '#lib/data/query-page.ts';
import { errors } from '#lib/errors.ts';

/**
 * A page read at a client's cursor: one that is not a cursor of this listing is 400 INVALID_INPUT.
 * Its own module, not validation.ts: that one every function loads, and this one brings lib/data.
 */
export async function clientCursorPage<T>(read: Promise<T>): Promise<T> {
  try {
    return await read;
  } catch (e) {
    if (e instanceof BadCursor) throw errors.invalidInput(e.message);
    throw e;
  }
}
