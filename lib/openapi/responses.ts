import * as z from 'zod';

/**
 * Markers for answers that are not JSON in the group's envelope, read by the OpenAPI builder
 * (`document.ts`) from the schema's metadata. A domain module declares its responses with these
 * beside its input schemas.
 */
export interface ResponseMeta {
  /** The answer skips the group's envelope (`reply(..., {bare: true})`). */
  bare?: boolean;
  /** A body of this media type (a download, a page, a script) instead of JSON. */
  mediaType?: string;
  /** A redirect: no body, a `Location` header. */
  redirect?: boolean;
  /** What the answer is, for the document. */
  description?: string;
}

const META_KEY = 'x-shroud-response';

/** `schema`'s answer is sent as is, without the group's envelope. */
export const bare = <S extends z.ZodType>(schema: S): S => schema.meta({ [META_KEY]: { bare: true } }) as S;

/** An answer of raw bytes (or text) of `mediaType`. */
export const bytesResponse = (mediaType: string, description: string) => z.string().meta({ [META_KEY]: { mediaType, description } });

/** A 302 to `Location` (no body). */
export const redirectResponse = (description: string) => z.null().meta({ [META_KEY]: { redirect: true, description } });

/** The marker of a response schema, if any. */
export function responseMeta(schema: z.ZodType): ResponseMeta {
  const meta = z.globalRegistry.get(schema) as Record<string, unknown> | undefined;
  return (meta?.[META_KEY] as ResponseMeta | undefined) ?? {};
}

export const RESPONSE_META_KEY = META_KEY;
