import type { Envelope } from './groups.ts';

/** The three response styles: `{success, data}`, `success` plus fields, or the auth group's bare fields (lib/http/groups.ts gives each group's). */
export function envelope(style: Envelope, data: unknown): unknown {
  if (style === 'data') return { success: true, data };
  if (style === 'flat') return { success: true, ...(data as object) };
  return data;
}
