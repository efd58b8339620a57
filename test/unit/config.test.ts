/**
 * The settings (docs/architecture.md, the file shape: settings): lib/config.ts's `readConfig` checks
 * an environment with a zod schema and names the variable, never its value; each config.ts exports
 * its reader, and the parsers keep their defaults and bounds for any value (fast-check).
 */
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import * as z from 'zod';
import { readAiConfig } from '#lib/ai/config.ts';
import { readAttestConfig } from '#lib/attest/config.ts';
import { readChainAConfig } from '#lib/chains/chain-a/config.ts';
import { readChainBConfig } from '#lib/chains/chain-b/config.ts';
import { readPlatformConfig, readConfig } from '#lib/config.ts';
import { readProofsConfig } from '#lib/proofs/config.ts';
import { readSwapConfig } from '#lib/swap/config.ts';
import { readTransferConfig } from '#lib/transfer/config.ts';

const failure = (f: () => unknown): string => {
  try {
    f();
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error('expected the configuration to be refused');
};

describe('readConfig', () => {
  const schema = z
    .object({ PORT: z.coerce.number().int().min(1).max(65535).default(3000), ENDPOINT: z.url().optional() })
    .refine((c) => c.PORT !== 1, { message: 'PORT 1 is reserved' });

  it('answers the parsed, typed settings with their defaults', () => {
    expect(readConfig(schema, {})).toEqual({ PORT: 3000 });
    expect(readConfig(schema, { PORT: '8080', ENDPOINT: 'http://127.0.0.1:9' })).toEqual({ PORT: 8080, ENDPOINT: 'http://127.0.0.1:9' });
  });

  it('refuses a bad value with a message that names each variable, and "(env)" for a rule over the whole', () => {
    const message = failure(() => readConfig(schema, { PORT: '0', ENDPOINT: 'nope' }));
    expect(message).toMatch(/^invalid configuration: /);
    expect(message).toMatch(/PORT: /);
    expect(message).toMatch(/ENDPOINT: /);
    expect(message).toContain('; ');
    expect(failure(() => readConfig(schema, { PORT: '1' }))).toBe('invalid configuration: (env): PORT 1 is reserved');
  });

  it('never repeats the refused value (a secret set by mistake stays out of the logs)', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 40 }), (s) => {
        const value = `SECRET-${s}`;
        const message = failure(() => readConfig(schema, { PORT: value, ENDPOINT: value }));
        expect(message).not.toContain(value);
        expect(message).toMatch(/^invalid configuration: PORT: /);
      }),
    );
  });
});

describe('the platform settings (lib/config.ts)', () => {
  it('CORS_ORIGINS: a comma list, trimmed, empty entries dropped', () => {
    const origin = fc.domain().map((d) => `https://${d}`);
    fc.assert(
      fc.property(fc.array(origin, { maxLength: 5 }), fc.constantFrom(',', ', ', ' ,', ',,'), (origins, sep) => {
        expect(readPlatformConfig({ CORS_ORIGINS: origins.join(sep) }).CORS_ORIGINS).toEqual(origins.map((o) => o.trim()).filter(Boolean));
      }),
    );
    expect(readPlatformConfig({}).CORS_ORIGINS).toEqual([]);
  });

  it('COOKIE_SECURE: true/1 and false/0, on by default, anything else refused', () => {
    expect(readPlatformConfig({}).COOKIE_SECURE).toBe(true);
    for (const [v, b] of [
      ['true', true],
      ['1', true],
      ['false', false],
      ['0', false],
    ] as const)
      expect(readPlatformConfig({ COOKIE_SECURE: v }).COOKIE_SECURE).toBe(b);
    fc.assert(
      fc.property(
        fc.string().filter((s) => !['true', 'false', '1', '0'].includes(s)),
        (v) => void expect(() => readPlatformConfig({ COOKIE_SECURE: v })).toThrow(/COOKIE_SECURE/),
      ),
    );
  });

  it('the table and bucket follow SERVICE_NAME and STAGE unless named', () => {
    const stage = fc.stringMatching(/^[a-z0-9-]{1,20}$/);
    fc.assert(
      fc.property(stage, (s) => {
        expect(readPlatformConfig({ STAGE: s })).toMatchObject({ TABLE_NAME: `shroud-${s}`, BUCKET_NAME: `shroud-${s}-blocks` });
      }),
    );
    expect(readPlatformConfig({ TABLE_NAME: 't', BUCKET_NAME: 'b' })).toMatchObject({ TABLE_NAME: 't', BUCKET_NAME: 'b' });
    expect(() => readPlatformConfig({ STAGE: 'Prod' })).toThrow(/STAGE: lower-case letters/);
  });
});

/** An integer setting: its default when unset, any value in bounds as given, any outside refused by name. */
const bounded = (read: (env: NodeJS.ProcessEnv) => unknown, name: string, min: number, max: number, fallback: number) => {
  const pick = (c: unknown) => (c as Record<string, number>)[name];
  expect(pick(read({})), name).toBe(fallback);
  fc.assert(fc.property(fc.integer({ min, max }), (n) => void expect(pick(read({ [name]: String(n) }))).toBe(n)));
  fc.assert(
    fc.property(
      fc.oneof(fc.integer({ max: min - 1 }), fc.integer({ min: max + 1 })),
      (n) => void expect(() => read({ [name]: String(n) })).toThrow(new RegExp(`${name}: `)),
    ),
  );
  expect(() => read({ [name]: 'twelve' })).toThrow(new RegExp(`${name}: `));
};

describe("the domains' settings keep their defaults and bounds", () => {
  it('proofs, transfer, attest, swap, wallets, ai', async () => {
    // lib/wallets/config.ts reads this process's settings when it loads: wallet keys need a place.
    vi.stubEnv('DATA_DIR', process.env.DATA_DIR ?? '/nonexistent-config-test');
    const { readWalletConfig } = await import('#lib/wallets/config.ts');
    bounded(readProofsConfig, 'PROOF_HISTORY_RETENTION_DAYS', 0, 3650, 365);
    bounded(readTransferConfig, 'TRANSFER_ROOT_HISTORY', 2, 1000, 100);
    bounded(readTransferConfig, 'TRANSFER_RETRY_AFTER_SECONDS', 30, 3600, 30);
    bounded(readAttestConfig, 'ATTEST_VALIDITY_DAYS', 1, 3650, 365);
    bounded(readAttestConfig, 'ATTEST_ROOT_HISTORY', 1, 1000, 30);
    bounded(readSwapConfig, 'SWAP_QUOTE_SECONDS', 5, 600, 30);
    bounded(readSwapConfig, 'SWAP_FEE_BPS', 0, 1000, 30);
    bounded((env) => readWalletConfig({ DATA_DIR: '/tmp', ...env }), 'WALLET_LOCK_SECONDS', 5, 900, 60);
    bounded(readAiConfig, 'AI_MAX_TOOL_ROUNDS', 0, 8, 4);
  });

  it('the rules across variables name the variable to set', async () => {
    vi.stubEnv('DATA_DIR', process.env.DATA_DIR ?? '/nonexistent-config-test');
    const { readWalletConfig } = await import('#lib/wallets/config.ts');
    expect(() => readWalletConfig({})).toThrow(/WALLET_KMS_KEY_ID: wallet keys need WALLET_KMS_KEY_ID \(AWS\) or DATA_DIR/);
    expect(() => readAiConfig({ AI_BACKEND: 'openai' })).toThrow(/AI_OPENAI_URL: AI_BACKEND=openai needs/);
    expect(() => readAiConfig({ AI_BACKEND: 'bedrock' })).toThrow(/AI_BEDROCK_MODEL_ID: /);
    expect(() => readSwapConfig({ CHAIN_A_NETWORK: 'mainnet', SWAP_ADAPTER: 'local' })).toThrow(/SWAP_ADAPTER: the local pools/);
    expect(() => readChainAConfig({ CHAIN_A_NETWORK: 'devnet' })).toThrow(/CHAIN_A_RPC_URL: required when CHAIN_A_NETWORK=devnet/);
    expect(failure(() => readChainBConfig({ CHAINB_ADAPTER: 'rpc' }))).toMatch(/CHAINB_RPC_URL: .*CHAINB_PRIVATE_KEY: required when CHAINB_ADAPTER=rpc/);
  });

  it('the derived values: the swap adapter by network, the chain A endpoints, the assistant base URL', () => {
    expect(readSwapConfig({}).adapter).toBe('local');
    expect(readSwapConfig({ CHAIN_A_NETWORK: 'devnet' }).adapter).toBe('jupiter');
    const a = readChainAConfig({ CHAIN_A_NETWORK: 'devnet', CHAIN_A_RPC_URL: 'https://rpc.example/' });
    expect(a).toMatchObject({ adapter: 'rpc', indexerUrl: 'https://rpc.example/', proverUrl: 'https://rpc.example/' });
    expect(readChainAConfig({})).toMatchObject({ adapter: 'local', CHAIN_A_NETWORK: 'localnet' });
    expect(readChainBConfig({ CHAIN_B_NETWORK: 'devnet' }).CHAIN_B_NETWORK).toBe('sepolia');
    expect(readAiConfig({}).baseUrl).not.toMatch(/\/$/);
  });
});
