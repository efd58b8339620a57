/**
 * The free-form `context` of a bug report, bounded before anything else looks at it. It is
 * stored as a DynamoDB map and read back by people and tools, so it must be plain data:
 *
 * - a JSON object at the top, at most MAX_CONTEXT_DEPTH levels of objects/arrays (DynamoDB
 *   refuses more than 32, and nothing useful is deeper), at most MAX_CONTEXT_NODES values;
 * - no key that names a prototype (`__proto__`, `constructor`, `prototype`) at any depth: copied
 *   into an object by an assignment they change its prototype instead of adding a field (and a
 *   `__proto__` key was silently lost that way), and in consumers they are the classic
 *   prototype-pollution vector;
 * - at most MAX_CONTEXT_BYTES as JSON.
 *
 * The walk is iterative and stops at the first problem, so a hostile 1,000-level value costs no
 * more than the limit it breaks.
 */
export const MAX_CONTEXT_BYTES = 8 * 1024;
export const MAX_CONTEXT_DEPTH = 8;
export const MAX_CONTEXT_NODES = 1000;
export const PROTOTYPE_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Why `value` is not an acceptable context (a message naming the reason), or undefined when it is. */
export function contextProblem(value: unknown): string | undefined {
  if (!isPlainObject(value)) return 'must be a JSON object';
  const stack: { value: unknown; depth: number; path: string }[] = [{ value, depth: 1, path: '' }];
  let nodes = 0;
  while (stack.length) {
    const { value: v, depth, path } = stack.pop()!;
    if (++nodes > MAX_CONTEXT_NODES) return `must hold at most ${MAX_CONTEXT_NODES} values`;
    if (typeof v !== 'object' || v === null) continue;
    if (depth > MAX_CONTEXT_DEPTH) return `must nest at most ${MAX_CONTEXT_DEPTH} levels deep (too deep at ${path || 'the top'})`;
    // Own keys, including a `__proto__` that JSON.parse created as an own property.
    for (const key of Object.keys(v)) {
      if (PROTOTYPE_KEYS.has(key)) return `the key '${key}' is not allowed (prototype keys are refused at any depth; at ${path || 'the top'})`;
      stack.push({ value: (v as Record<string, unknown>)[key], depth: depth + 1, path: path ? `${path}.${key.slice(0, 40)}` : key.slice(0, 40) });
    }
  }
  if (Buffer.byteLength(JSON.stringify(value)) > MAX_CONTEXT_BYTES) return `must be at most ${MAX_CONTEXT_BYTES} bytes as JSON`;
  return undefined;
}
