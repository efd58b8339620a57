import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ShroudStack } from '../../../cdk/stack.ts';
import { startRuntime } from '#lib/local/runtime.ts';
import { circuitsDir, listCircuits } from '#lib/zk/circuits.ts';
import { assertTrustedSetup, developmentCircuits } from '#lib/zk/trusted-setup.ts';
import { testApp } from '../../support/cdk.ts';

const ALL = ['membership', 'membership_scoped', 'password', 'preimage', 'preimage_scoped', 'range', 'range_scoped', 'withdraw'];
const saved = { ...process.env };
afterEach(() => {
  for (const k of ['CHAIN_A_NETWORK', 'SHROUD_PRODUCTION', 'CIRCUITS_DIR']) {
    if (saved[k] === undefined) delete process.env[k];
    else process.env[k] = saved[k];
  }
});

/** A copy of the shipped artifacts whose transcripts all say `public` (what a finished public ceremony leaves). */
function publicCopy(): string {
  const dir = mkdtempSync(join(tmpdir(), 'shroud-circuits-'));
  cpSync(circuitsDir(), dir, { recursive: true });
  for (const name of readdirSync(dir)) {
    const file = join(dir, name, 'transcript.json');
    writeFileSync(file, JSON.stringify({ ...JSON.parse(readFileSync(file, 'utf8')), kind: 'public', reasons: [] }));
  }
  return dir;
}

describe('the trusted-setup guard', () => {
  it('finds every shipped circuit development (a local ceremony)', () => {
    expect(developmentCircuits(circuitsDir())).toEqual(ALL);
  });

  it('refuses development keys on mainnet or a production stage, with one error naming them and the fix', () => {
    for (const env of [{ CHAIN_A_NETWORK: 'mainnet' }, { SHROUD_PRODUCTION: 'true' }]) {
      expect(() => assertTrustedSetup(circuitsDir(), env)).toThrow(
        /membership, membership_scoped, password, preimage, preimage_scoped, range, range_scoped, withdraw .*npm run ceremony/,
      );
    }
    expect(() => assertTrustedSetup(circuitsDir(), { CHAIN_A_NETWORK: 'devnet' })).not.toThrow();
    expect(() => assertTrustedSetup(circuitsDir(), { CHAIN_A_NETWORK: 'localnet' })).not.toThrow();
  });

  it('lets a stage that moves real value run with keys from a public ceremony', () => {
    const dir = publicCopy();
    try {
      expect(() => assertTrustedSetup(dir, { CHAIN_A_NETWORK: 'mainnet', SHROUD_PRODUCTION: 'true' })).not.toThrow();
      // One circuit left development is enough to refuse, and it is the one named.
      const file = join(dir, 'withdraw', 'transcript.json');
      writeFileSync(file, JSON.stringify({ ...JSON.parse(readFileSync(file, 'utf8')), kind: 'development' }));
      expect(() => assertTrustedSetup(dir, { CHAIN_A_NETWORK: 'mainnet' })).toThrow(/the keys of withdraw come from a development ceremony/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a function refuses to load the circuits on mainnet', () => {
    const dir = publicCopy(); // a directory the registry has not cached yet
    try {
      rmSync(join(dir, 'range', 'transcript.json'));
      process.env.CIRCUITS_DIR = dir;
      process.env.CHAIN_A_NETWORK = 'mainnet';
      expect(() => listCircuits()).toThrow(/refusing CHAIN_A_NETWORK=mainnet: the keys of range/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the local runtime refuses to start on mainnet', async () => {
    process.env.CHAIN_A_NETWORK = 'mainnet';
    await expect(startRuntime({ port: 0, routes: [], jobs: [] })).rejects.toThrow(/refusing CHAIN_A_NETWORK=mainnet/);
  });

  it('cdk synth refuses a production stage, or one whose functions run on mainnet', () => {
    process.env.CDK_VALIDATION = 'false';
    for (const context of [{ production: 'true' }, { functionEnvironment: JSON.stringify({ CHAIN_A_NETWORK: 'mainnet' }) }]) {
      const app = testApp({ context: { 'aws:cdk:bundling-stacks': [], stage: 'ci', ...context } });
      expect(() => new ShroudStack(app, 'Shroud-ci', { stage: 'ci' })).toThrow(/come from a development ceremony/);
    }
  });
});
