import * as z from 'zod';
import { errors } from '#lib/errors.ts';

/** `a.b: message; c: message` — every validation failure names its field. */
export function describeZodError(where: string, e: z.ZodError): string {
  return e.issues
    .slice(0, 5)
    .map((i) => {
      const path = i.path.map(String).join('.');
      return `${path || where}: ${i.message}`;
    })
    .join('; ');
}

export function parseWith<S extends z.ZodType>(schema: S, value: unknown, where: string): z.infer<S> {
  const out = schema.safeParse(value);
  if (!out.success) throw errors.invalidInput(describeZodError(where, out.error));
  return out.data;
}

/**
 * A whole number in a query string, written as digits only (`z.coerce.number()` would also take
 * `""`, `" "`, `0x10` and `1e3`), then bounded as a number.
 */
export const queryInteger = (min: number, max: number) =>
  z
    .string()
    .regex(/^[0-9]{1,15}$/, 'must be a whole number')
    .transform(Number)
    .pipe(z.number().int().min(min, `must be at least ${min}`).max(max, `must be at most ${max}`));
