import type * as z from 'zod';

/** A JSON Schema node as zod's toJSONSchema writes it (document.ts uses the same shape). */
export type JsonSchema = Record<string, unknown>;

/**
 * A request body's example for the reference: written here where a made-up value would not do (an
 * address, a proof), else sampled from the body's JSON Schema. Either way the route's own zod
 * schema must accept it, or the document is not generated (test/unit/openapi-reference.test.ts).
 */
const PROOF = {
  pi_a: ['1', '2', '1'],
  pi_b: [
    ['1', '2'],
    ['3', '4'],
    ['1', '0'],
  ],
  pi_c: ['1', '2', '1'],
  protocol: 'groth16',
  curve: 'bn128',
};
const SOL_ADDRESS = '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin';
const CHAIN_B_ADDRESS = '0x049d36570d4e46f48e99674bd3fcc84644ddd6b96f7c741b1562b82f9e004dc7';
const UUID = '3f0c9a52-8d1e-4c7b-9a43-5e2f1d6b7c80';

export const BODY_EXAMPLES: Record<string, unknown> = {
  'POST /api/auth/register': {
    username: 'ada',
    password: 'correct horse battery staple',
    identityPublicKey: 'BJx0gK2v5nq3QnM7sXn8b7Q0tq4J8kq3s6xjv9Ql2m4=',
    identityPrivateKeyEncrypted: 'q8Yk0s9mZr2u1n4c7l0v3b6x9z2a5d8g1j4m7p0s3v6y9B2E5H8K1N4Q7T0W3Z6c',
    identityPrivateKeyIv: 'AAECAwQFBgcICQoL',
    kdfSalt: 'c2FsdHNhbHRzYWx0c2FsdA==',
    kdfIterations: 100000,
  },
  'POST /api/auth/login': { username: 'ada', password: 'correct horse battery staple' },
  'POST /api/compression/compress-native': { walletId: UUID, amount: 0.5 },
  'POST /api/compression/decompress-native': { walletId: UUID, amount: 0.25 },
  'POST /api/compression/transfer': { walletId: UUID, mint: SOL_ADDRESS, to: SOL_ADDRESS, amount: 1.5 },
  'POST /api/chainb/transfer': { walletId: UUID, amount: '1.5', recipientAddress: CHAIN_B_ADDRESS, password: 'wallet password', token: 'STRK' },
  'POST /api/bridge/initiate': { bridgeType: 'chaina-chainb', direction: 'deposit', token: 'SOL', amount: '0.5', destAddress: CHAIN_B_ADDRESS, walletId: UUID },
  'POST /api/storage/share': { fileId: UUID, expiresIn: '7d' },
  'POST /api/zk-toolkit/proof/verify': { circuit: 'preimage', proof: PROOF, publicSignals: ['1'] },
  'POST /api/auth/upgrade-legacy': {
    identityPublicKey: 'BJx0gK2v5nq3QnM7sXn8b7Q0tq4J8kq3s6xjv9Ql2m4=',
    identityPrivateKeyEncrypted: 'q8Yk0s9mZr2u1n4c7l0v3b6x9z2a5d8g1j4m7p0s3v6y9B2E5H8K1N4Q7T0W3Z6c',
    identityPrivateKeyIv: 'AAECAwQFBgcICQoL',
    kdfSalt: 'c2FsdHNhbHRzYWx0c2FsdA==',
    kdfIterations: 100000,
  },
  'POST /api/chainb/submit-proof': {
    zkId: 'did:zk:0123456789abcdef',
    publicKey: 'BJx0gK2v5nq3QnM7sXn8b7Q0tq4J8kq3s6xjv9Ql2m4=',
    signature: `${'A'.repeat(86)}==`,
    nonce: 'n0nce-1234567890ab',
    timestamp: 1767225600000,
  },
  'POST /api/zk-toolkit/hash/poseidon': { inputs: ['1', '2'] },
  'POST /api/wallets': { chain: 'b', name: 'savings', password: 'wallet password' },
  'POST /api/wallets/import': { chain: 'a', name: 'imported', secretKey: '<the base58 secret key>' },
  'POST /api/bug-reports': { title: 'Download stops at 99 %', description: 'A 40 MB file stops downloading at 99 % in Firefox 128.' },
  'POST /api/ai/chat': { message: 'what is my balance?' },
  'POST /api/zk-toolkit/shamir/combine': {
    shares: [
      { x: '1', y: '4242' },
      { x: '2', y: '8442' },
    ],
  },
  'POST /api/zk-toolkit/proof/generate': { circuit: 'preimage', inputs: { secret: '5' } },
  'POST /api/zk-toolkit/hash/pedersen': { input: 'hello', encoding: 'utf8' },
  'POST /api/storage/download': { fileId: UUID, proof: PROOF, publicSignals: ['1', '2'] },
  'POST /api/storage/replica/pin': { cid: 'bafkreihdwdcefgh4dqkjv67uzcmw7ojee6xedzdetojuzjevtenxquvyku', replicas: 1 },
  'POST /api/attest': { schema: 'age-over-18', proof: PROOF, publicSignals: ['1', '18', '150'], scope: 'default' },
  'POST /api/attest/groups': { name: 'book club' },
  'POST /api/swap/quote': { walletId: UUID, from: 'SOL', to: 'sUSD', amount: 0.5, slippageBps: 50 },
  'POST /api/transfer/deposit': { pool: 'sol-1', walletId: UUID, commitment: '1234567890' },
  'POST /api/transfer/withdraw': { pool: 'sol-1', proof: PROOF, root: '1', nullifierHash: '2', recipient: SOL_ADDRESS },
  'POST /api/storage/verify': { proof: PROOF, publicSignals: ['1', '2'], commitment: '1' },
};

/** A value of `schema` (the JSON Schema zod made): the first of a choice, the minimum of a range, a string of the pattern's simplest form. */
export function sample(schema: JsonSchema, name = '', defs: Record<string, JsonSchema> = {}, depth = 0): unknown {
  if (depth > 8) return null;
  if (schema.$ref) return sample(defs[String(schema.$ref).split('/').pop()!] ?? {}, name, defs, depth + 1);
  if ('example' in schema) return schema.example;
  if (Array.isArray(schema.examples) && schema.examples.length) return schema.examples[0];
  if ('default' in schema) return schema.default;
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  for (const key of ['anyOf', 'oneOf'] as const) {
    const branches = schema[key] as JsonSchema[] | undefined;
    if (branches?.length) return sample(branches.find((b) => b.type !== 'null') ?? branches[0]!, name, defs, depth + 1);
  }
  if (Array.isArray(schema.allOf)) return Object.assign({}, ...(schema.allOf as JsonSchema[]).map((s) => sample(s, name, defs, depth + 1)));
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  switch (type) {
    case 'object': {
      const props = (schema.properties as Record<string, JsonSchema> | undefined) ?? {};
      const required = new Set((schema.required as string[] | undefined) ?? []);
      // Every required field, and the optional ones too when there are few (a fuller example).
      const keys = Object.keys(props).filter((k) => required.has(k) || Object.keys(props).length <= 4);
      return Object.fromEntries(keys.map((k) => [k, sample(props[k]!, k, defs, depth + 1)]));
    }
    case 'array': {
      const n = Math.max(Number(schema.minItems ?? 1), 1);
      const items = (schema.prefixItems as JsonSchema[] | undefined) ?? Array.from({ length: n }, () => (schema.items as JsonSchema | undefined) ?? {});
      return items.map((s) => sample(s, name, defs, depth + 1));
    }
    case 'integer':
    case 'number': {
      const min = Number(schema.minimum ?? (schema.exclusiveMinimum !== undefined ? Number(schema.exclusiveMinimum) + 1 : 1));
      return Math.max(min, Math.min(1, Number(schema.maximum ?? 1)));
    }
    case 'boolean':
      return true;
    case 'string':
      return stringSample(schema, name);
    default:
      return {};
  }
}

function stringSample(schema: JsonSchema, name: string): string {
  const format = schema.format as string | undefined;
  if (format === 'uuid') return UUID;
  if (format === 'date-time') return '2026-01-01T00:00:00.000Z';
  if (format === 'email') return 'ada@example.com';
  if (format === 'uri' || format === 'url') return 'https://example.com/';
  const pattern = schema.pattern as string | undefined;
  const min = Number(schema.minLength ?? 1);
  let value = /address|^to$|recipient|mint/i.test(name)
    ? SOL_ADDRESS
    : /id$/i.test(name)
      ? UUID
      : /hash/i.test(name)
        ? `0x${'1'.repeat(64)}`
        : /^\^?\[0-9\]|\\d/.test(pattern ?? '')
          ? '1'
          : name || 'text';
  if (pattern) {
    for (const candidate of [value, '1', '0x1', 'abc', UUID, `0x${'1'.repeat(64)}`, SOL_ADDRESS, 'a'.repeat(Math.max(min, 3))]) {
      if (new RegExp(pattern, 'u').test(candidate)) return candidate;
    }
  }
  while (value.length < min) value += value;
  return value.slice(0, Number(schema.maxLength ?? value.length));
}

/** The example of one route's body, checked against its zod schema (a wrong example is a build error, not a doc). */
export function bodyExample(key: string, schema: JsonSchema, body: z.ZodType): unknown {
  const example = key in BODY_EXAMPLES ? BODY_EXAMPLES[key] : sample(schema, '', (schema.$defs as Record<string, JsonSchema> | undefined) ?? {});
  const parsed = body.safeParse(example);
  if (!parsed.success) {
    throw new Error(
      `lib/openapi/examples.ts: the example of ${key} is refused by its schema (${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}): ${JSON.stringify(example).slice(0, 300)}`,
    );
  }
  return example;
}
