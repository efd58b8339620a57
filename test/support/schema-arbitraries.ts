import fc from 'fast-check';
import { z } from 'zod';

/**
 * fast-check arbitraries from a route's zod schema, through its JSON Schema (`z.toJSONSchema`, the
 * input side): values that satisfy it, values one step off it, and hostile values that ignore it.
 * Only what the route schemas use is understood (object, array, tuple, string with pattern /
 * length / format, integer and number bounds, enum, const, anyOf, any); anything else falls
 * back to arbitrary JSON. Refinements zod cannot express in JSON Schema are not seen: a
 * `valid` value satisfies the JSON Schema, not necessarily every refinement.
 */
export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: JsonSchema | boolean;
  items?: JsonSchema | false;
  prefixItems?: JsonSchema[];
  minItems?: number;
  maxItems?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  default?: unknown;
}

export const jsonSchemaOf = (schema: z.ZodType): JsonSchema => z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;

/** Keys that reach for the prototype when an object is merged or indexed carelessly. */
export const PROTOTYPE_KEYS = ['__proto__', 'constructor', 'prototype'] as const;

/** Strings that tend to break parsers, loggers and key builders. */
const NASTY_STRINGS = [
  '',
  ' ',
  '\u0000',
  '%00',
  '../../etc/passwd',
  '#',
  'SHARE#x',
  '😀',
  '\u202e\u0645\u0631\u062d\u0628\u0627',
  'e\u0301\u0301\u0301',
  '\ud800',
  '\udfff',
  '<script>alert(1)</script>',
  "' OR 1=1 --",
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a template-injection probe, a plain string on purpose
  '${7*7}',
  '__proto__',
  'constructor',
  'NaN',
  '-0',
  '1e999',
  '0x10',
];
const nastyStrings = fc.constantFrom(...NASTY_STRINGS);
/** Any code point (lone surrogates included), a few graphemes, or one of the nasty ones. */
export const anyString = (maxLength = 40) =>
  fc.oneof(
    fc.string({ maxLength }),
    fc.string({ unit: 'binary', maxLength }),
    fc.string({ unit: 'grapheme', maxLength: Math.min(maxLength, 8) }),
    nastyStrings,
  );

const isType = (s: JsonSchema, t: string) => s.type === t || (Array.isArray(s.type) && s.type.includes(t));
const cap = (n: number | undefined, dflt: number) => Math.min(n ?? dflt, dflt);

/** Values the JSON Schema accepts. Objects may carry extra keys (prototype keys among them) when `extras` is on, as zod strips them. */
export function valid(s: JsonSchema, opts: { extras?: boolean } = {}): fc.Arbitrary<unknown> {
  if (s.anyOf) return fc.oneof(...s.anyOf.map((x) => valid(x, opts)));
  if ('const' in s) return fc.constant(s.const);
  if (s.enum) return fc.constantFrom(...s.enum);
  if (isType(s, 'object')) return validObject(s, opts);
  if (isType(s, 'array')) {
    if (s.prefixItems) {
      const head = fc.tuple(...s.prefixItems.map((x) => valid(x, opts)));
      if (s.items === false || s.items === undefined) return head;
      const rest = fc.array(valid(s.items, opts), { maxLength: Math.max(0, cap(s.maxItems, 8) - s.prefixItems.length) });
      return fc.tuple(head, rest).map(([h, r]) => [...h, ...r]);
    }
    const item = s.items ? valid(s.items, opts) : fc.jsonValue({ maxDepth: 2 });
    const minLength = s.minItems ?? 0;
    return fc.array(item, { minLength, maxLength: Math.max(minLength, cap(s.maxItems, 8)) });
  }
  if (isType(s, 'string')) return validString(s);
  if (isType(s, 'integer') || isType(s, 'number')) {
    const min = Math.max(s.minimum ?? Number.MIN_SAFE_INTEGER, s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + 1 : -Infinity);
    const max = Math.min(s.maximum ?? Number.MAX_SAFE_INTEGER, s.exclusiveMaximum !== undefined ? s.exclusiveMaximum - 1 : Infinity);
    // The bounds and their neighbours matter most; the middle of a 2^53 range much less.
    const edges = fc.constantFrom(...[min, max, min + 1, max - 1, 0, 1, -1].filter((n) => n >= min && n <= max));
    return fc.oneof(
      edges,
      fc.integer({ min: Math.max(min, -1_000_000_000), max: Math.min(max, 1_000_000_000) }).filter((n) => n >= min && n <= max),
    );
  }
  if (isType(s, 'boolean')) return fc.boolean();
  if (isType(s, 'null')) return fc.constant(null);
  return fc.jsonValue({ maxDepth: 2 });
}

function validString(s: JsonSchema): fc.Arbitrary<string> {
  const minLength = s.minLength ?? 0;
  const maxLength = s.maxLength ?? Infinity;
  const fits = (x: string) => x.length >= minLength && x.length <= maxLength;
  if (s.format === 'uuid') return fc.uuid().filter(fits);
  if (s.pattern) {
    const re = new RegExp(s.pattern, 'u');
    // stringMatching gives strings of any length the pattern allows; keep the ones within bounds.
    return fc.stringMatching(re, { size: 'small' }).filter((x) => fits(x) && re.test(x));
  }
  const upper = Math.min(maxLength, minLength + 60);
  return fc
    .oneof(
      fc.string({ minLength, maxLength: upper }),
      fc.string({ unit: 'grapheme', minLength, maxLength: upper }),
      fc.string({ unit: 'binary', minLength, maxLength: upper }),
      // Only the nasty strings that fit: a filter that rejects every value of a constantFrom never ends.
      ...(NASTY_STRINGS.some(fits) ? [fc.constantFrom(...NASTY_STRINGS.filter(fits))] : []),
    )
    .filter(fits);
}

function validObject(s: JsonSchema, opts: { extras?: boolean }): fc.Arbitrary<Record<string, unknown>> {
  const props = s.properties ?? {};
  const shape = Object.fromEntries(Object.entries(props).map(([k, v]) => [k, valid(v, opts)]));
  const base = fc.record(shape, { requiredKeys: s.required ?? [] });
  const additional = typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined;
  const dictionary = additional
    ? fc.dictionary(anyString(16), valid(additional, opts), { maxKeys: 4 })
    : opts.extras
      ? fc.array(fc.tuple(fc.oneof(fc.constantFrom(...PROTOTYPE_KEYS), anyString(16)), fc.jsonValue({ maxDepth: 2 })), { maxLength: 3 })
      : fc.constant([]);
  return fc.tuple(base, dictionary).map(([b, extra]) => Object.assign(ownKeys(Array.isArray(extra) ? extra : Object.entries(extra), props), b));
}

/** An object of these entries, `__proto__` among them as an own key (as JSON.parse makes it), not as the prototype; `skip` keys left out. */
export function ownKeys(entries: [string, unknown][], skip: object = {}): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of entries) if (!Object.hasOwn(skip, k)) Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
  return out;
}

/**
 * Known-good values (a real identity, an existing file id) and the same with one field replaced by
 * a valid or an invalid value of its schema: reaches the logic behind refinements that JSON Schema
 * cannot describe.
 */
export function around(s: JsonSchema, examples: Record<string, unknown>[]): fc.Arbitrary<unknown> {
  const props = Object.entries(s.properties ?? {});
  const example = fc.constantFrom(...examples);
  if (!props.length) return example;
  const replaced = fc
    .tuple(example, fc.constantFrom(...props))
    .chain(([e, [k, p]]) => fc.oneof(valid(p), breakable(p) ? invalid(p) : valid(p)).map((v) => ({ ...e, [k]: v })));
  return fc.oneof(example, replaced);
}

/** A value of another JSON type than the schema wants (or a very deep or very large one). */
const wrongTypeFor = (s: JsonSchema): fc.Arbitrary<unknown> => {
  const all: [string, fc.Arbitrary<unknown>][] = [
    ['string', anyString()],
    ['integer', fc.oneof(fc.integer(), fc.constantFrom(1e308, -1e308, Number.MAX_SAFE_INTEGER + 2))],
    ['number', fc.double({ noNaN: true, noDefaultInfinity: true }).filter((n) => !Number.isInteger(n))],
    ['boolean', fc.boolean()],
    ['null', fc.constant(null)],
    ['array', fc.array(fc.jsonValue({ maxDepth: 1 }), { maxLength: 3 })],
    ['object', fc.dictionary(anyString(8), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 3 })],
  ];
  const own = new Set(Array.isArray(s.type) ? s.type : [s.type]);
  if (own.has('number')) own.add('integer');
  return fc.oneof(...all.filter(([t]) => !own.has(t)).map(([, a]) => a), deepValue(), hugeValue());
};

/** Nested arrays or objects, up to 1,000 levels (deeper ones go as raw text, see `hostileBodyText`). */
export const deepValue = () =>
  fc.tuple(fc.integer({ min: 20, max: 1000 }), fc.boolean()).map(([depth, arrays]) => {
    let v: unknown = 'bottom';
    for (let i = 0; i < depth; i++) v = arrays ? [v] : { a: v };
    return v;
  });

/** A megabyte string, a long array or an object with many keys. */
export const hugeValue = () =>
  fc
    .constantFrom(
      () => 'x'.repeat(1 << 20),
      () => '😀'.repeat(100_000),
      () => Array.from({ length: 50_000 }, (_, i) => i),
      () => Object.fromEntries(Array.from({ length: 5_000 }, (_, i) => [`k${i}`, i])),
    )
    .map((make) => make());

/**
 * Values the JSON Schema rejects, one step away from a valid one: one required field missing,
 * of the wrong type, out of bounds, or an element of a nested value broken the same way.
 * The schema must reject something (an `{}` schema rejects nothing: then this gives `never`).
 */
export const invalid = (s: JsonSchema): fc.Arbitrary<unknown> => offBy(s).filter((v) => !accepts(s, v));

function offBy(s: JsonSchema): fc.Arbitrary<unknown> {
  if (s.anyOf) return wrongTypeFor({ type: s.anyOf.flatMap((x) => (Array.isArray(x.type) ? x.type : x.type ? [x.type] : [])) });
  if ('const' in s) return fc.oneof(anyString(), fc.integer()).filter((v) => v !== s.const);
  if (s.enum) return anyString().filter((v) => !s.enum!.includes(v));
  if (isType(s, 'object')) return invalidObject(s);
  if (isType(s, 'array')) {
    const options: fc.Arbitrary<unknown>[] = [wrongTypeFor(s)];
    const base = valid(s) as fc.Arbitrary<unknown[]>;
    if (s.maxItems !== undefined && s.maxItems < 10_000)
      options.push(fc.array(s.items ? valid(s.items) : fc.constant('0'), { minLength: s.maxItems + 1, maxLength: s.maxItems + 3 }));
    if (s.minItems) options.push(base.map((a) => a.slice(0, s.minItems! - 1)));
    const index = s.prefixItems ? s.prefixItems.findIndex(breakable) : -1;
    const child = index >= 0 ? s.prefixItems![index] : s.items && breakable(s.items) ? s.items : undefined;
    const at = Math.max(index, 0);
    if (child)
      options.push(
        fc
          .tuple(base, invalid(child))
          .filter(([a]) => a.length > at)
          .map(([a, bad]) => a.map((x, i) => (i === at ? bad : x))),
      );
    return fc.oneof(...options);
  }
  if (isType(s, 'string')) {
    const options: fc.Arbitrary<unknown>[] = [wrongTypeFor(s)];
    if (s.maxLength !== undefined)
      options.push(
        fc.integer({ min: 1, max: 3 }).map((n) => '9'.repeat(s.maxLength! + n)),
        fc.constant('9'.repeat(s.maxLength + 100_000)),
      );
    if (s.minLength) options.push(fc.constant('9'.repeat(s.minLength - 1)));
    if (s.pattern || s.format) {
      const re = new RegExp(s.pattern ?? '^$', 'u');
      options.push(
        fc
          .tuple(validString(s), fc.constantFrom('!', ' ', '\u0000', '😀', '\ud800', 'Z', '-'), fc.boolean())
          .map(([v, c, front]) => (front ? c + v : v + c))
          .filter((v) => !re.test(v)),
      );
    }
    return fc.oneof(...options);
  }
  if (isType(s, 'integer') || isType(s, 'number')) {
    const options: fc.Arbitrary<unknown>[] = [wrongTypeFor(s), fc.constantFrom('1', '0x1', '')];
    if (isType(s, 'integer')) options.push(fc.constantFrom(0.5, 1.5, -0.25));
    if (s.minimum !== undefined && s.minimum > Number.MIN_SAFE_INTEGER) options.push(fc.constantFrom(s.minimum - 1, -1e308));
    if (s.maximum !== undefined && s.maximum < Number.MAX_SAFE_INTEGER) options.push(fc.constantFrom(s.maximum + 1, 1e308));
    return fc.oneof(...options);
  }
  if (s.type) return wrongTypeFor(s);
  return fc.constant(undefined).filter(() => false);
}

/** Whether anything breaks the schema (an `{}` accepts every value). */
export const breakable = (s: JsonSchema): boolean => Boolean(s.type || s.anyOf || s.enum || 'const' in s);

function invalidObject(s: JsonSchema): fc.Arbitrary<unknown> {
  const props = s.properties ?? {};
  const required = new Set(s.required ?? []);
  const options: fc.Arbitrary<unknown>[] = [wrongTypeFor(s)];
  const base = validObject(s, { extras: true });
  if (required.size) options.push(fc.tuple(base, fc.constantFrom(...required)).map(([v, k]) => withoutKey(v, k)));
  const broken = Object.entries(props).filter(([, p]) => breakable(p));
  if (broken.length) {
    options.push(
      fc
        .constantFrom(...broken)
        .chain(([k, p]) => fc.tuple(base, invalid(p)).map(([v, bad]) => withKey(v, k, bad)))
        .filter((v) => v !== undefined),
    );
  }
  return fc.oneof(...options);
}

const withoutKey = (v: Record<string, unknown>, k: string) => {
  const out = { ...v };
  delete out[k];
  return out;
};
const withKey = (v: Record<string, unknown>, k: string, value: unknown) => {
  // `undefined` would vanish in JSON and read as "missing", which an optional field allows.
  if (value === undefined) return undefined;
  const out = { ...v };
  out[k] = value;
  return out;
};

/** A tiny JSON Schema checker for the keywords above: what keeps `invalid` honest. */
export function accepts(s: JsonSchema, v: unknown): boolean {
  if (s.anyOf) return s.anyOf.some((x) => accepts(x, v));
  if ('const' in s) return v === s.const;
  if (s.enum) return s.enum.includes(v);
  if (isType(s, 'string')) {
    if (typeof v !== 'string') return false;
    if (s.minLength !== undefined && v.length < s.minLength) return false;
    if (s.maxLength !== undefined && v.length > s.maxLength) return false;
    return !s.pattern || new RegExp(s.pattern, 'u').test(v);
  }
  if (isType(s, 'integer') || isType(s, 'number')) {
    if (typeof v !== 'number' || !Number.isFinite(v) || (isType(s, 'integer') && !Number.isInteger(v))) return false;
    return (s.minimum === undefined || v >= s.minimum) && (s.maximum === undefined || v <= s.maximum);
  }
  if (isType(s, 'array')) {
    if (!Array.isArray(v)) return false;
    if ((s.minItems !== undefined && v.length < s.minItems) || (s.maxItems !== undefined && v.length > s.maxItems)) return false;
    if (s.prefixItems) return s.prefixItems.every((p, i) => accepts(p, v[i])) && (s.items !== false || v.length <= s.prefixItems.length);
    return !s.items || v.every((x) => accepts(s.items as JsonSchema, x));
  }
  if (isType(s, 'object')) {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
    const o = v as Record<string, unknown>;
    if ((s.required ?? []).some((k) => !Object.hasOwn(o, k))) return false;
    return Object.entries(s.properties ?? {}).every(([k, p]) => !Object.hasOwn(o, k) || accepts(p, o[k]));
  }
  if (isType(s, 'boolean')) return typeof v === 'boolean';
  if (isType(s, 'null')) return v === null;
  return true;
}

/**
 * Raw JSON texts no schema wants: not JSON, truncated, 100,000 levels deep, numbers beyond
 * doubles, a valid body with a prototype key spliced in.
 */
export function hostileBodyText(s: JsonSchema | undefined): fc.Arbitrary<string> {
  const deep = fc
    .tuple(fc.constantFrom(1_000, 10_000, 100_000), fc.constantFrom(['[', ']'], ['{"a":', '}']))
    .map(([n, [open, close]]) => open!.repeat(n) + '1' + close!.repeat(n));
  const texts = fc.oneof(
    deep,
    fc.constantFrom(
      '',
      'null',
      'true',
      '1e999',
      '-0',
      '"x"',
      '[]',
      '{',
      '{"a":',
      '{"a":1,}',
      "{'a':1}",
      '\ufeff{}',
      '{"a":1}garbage',
      '{"a":"\\ud800"}',
      '{"__proto__":null}',
    ),
    anyString(200),
  );
  if (!s || !isType(s, 'object')) return texts;
  const spliced = fc
    .tuple(
      valid(s),
      fc.constantFrom(...PROTOTYPE_KEYS),
      fc.constantFrom('{"isAdmin":true,"polluted":1}', 'null', '1', '"x"', '[]', '{"prototype":{"polluted":1}}'),
    )
    .map(([v, key, value]) => {
      const text = JSON.stringify(v);
      return text === '{}' ? `{"${key}":${value}}` : `{"${key}":${value},${text.slice(1)}`;
    });
  return fc.oneof(texts, spliced);
}
