import { describe, expect, it } from 'vitest';
import { readChainAConfig } from '#lib/chains/chain-a/config.ts';

/** Chain A's settings (lib/chains/chain-a/config.ts): a Lambda function must name an RPC. */
describe('chain A configuration', () => {
  it('a deployed function without CHAIN_A_RPC_URL is a configuration error naming it, not a missing native package later', () => {
    expect(() => readChainAConfig({ AWS_LAMBDA_FUNCTION_NAME: 'shroud-x-wallets-balance' })).toThrow(
      /invalid configuration: CHAIN_A_RPC_URL: required on a deployed stage/,
    );
    const rpc = readChainAConfig({ AWS_LAMBDA_FUNCTION_NAME: 'f', CHAIN_A_RPC_URL: 'http://127.0.0.1:8899' });
    expect(rpc).toMatchObject({ adapter: 'rpc', CHAIN_A_NETWORK: 'localnet', indexerUrl: 'http://127.0.0.1:8899' });
  });

  it('outside Lambda, localnet without an RPC is the embedded chain; devnet needs its RPC', () => {
    expect(readChainAConfig({ DATA_DIR: '/tmp/x' }).adapter).toBe('local');
    expect(readChainAConfig({}).adapter).toBe('local');
    expect(() => readChainAConfig({ CHAIN_A_NETWORK: 'devnet' })).toThrow(/CHAIN_A_RPC_URL: required when CHAIN_A_NETWORK=devnet/);
  });
});
