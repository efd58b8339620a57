import type { Envelope } from './groups.ts';

/** API.md's three styles: `{success, data}`, `success` plus fields, or the auth group's bare fields. */
export function envelope(style: Envelope, data: unknown): unknown {
  if (style === 'data') return { success: true, data };
  if (style === 'flat') return { success: true, ...(data as object) };
  return data;
}
