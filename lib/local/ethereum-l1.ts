import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { bridgeRoutes } from '#lib/bridge/routes.ts';
import { STARKNET_CORE_CONTRACT } from '#lib/bridge/starkgate.ts';
import { bytes32String, word } from '#lib/chains/ethereum/abi.ts';
import { CONTRACTS } from '#lib/chains/ethereum/contracts.generated.ts';
import { freePort } from './ports.ts';

/**
 * The embedded Ethereum L1 of `npm start`: ganache (the npm package, pure JS, in process) on a
 * loopback port, its chain kept under `<dataDir>/ethereum` so that it survives a restart. The
 * contracts of lib/chains/ethereum/contracts stand at the addresses the pinned registries name:
 * the Starknet core contract's messaging at 0xc662…C8c4, each StarkGate L1 bridge of
 * lib/bridge/routes.json at its mainnet address, and an ERC-20 at each bridged token's mainnet
 * address. Each is deployed normally (its constructor fixes its immutables), then its runtime
 * code is set at the mainnet address (`evm_setAccountCode`); the storage there starts empty,
 * which is all these contracts need. Local chain id 1337; accounts from ganache's deterministic
 * mnemonic, 1000 ETH each (the first one also mints the tokens: the local faucet).
 */
export interface EthereumL1 {
  url: string;
  port: number;
  chainId: number;
  /** Unlocked accounts (eth_sendTransaction signs for them); accounts[0] deployed the contracts and mints the tokens. */
  accounts: string[];
  /** Whether this start placed the contracts (the first start on a data directory, or after they changed). */
  placed: boolean;
  stop(): Promise<void>;
}

type Call = (method: string, params: unknown[]) => Promise<unknown>;
interface GanacheServer {
  listen(port: number, host: string): Promise<void>;
  close(): Promise<void>;
  provider: { request(args: { method: string; params: unknown[] }): Promise<unknown> };
}

const CHAIN_ID = 1337;

/** What is placed: a change to the contracts or the routes places them again. */
function placementId(): string {
  return createHash('sha256')
    .update(JSON.stringify({ CONTRACTS, routes: bridgeRoutes['ethereum-chainb'], core: STARKNET_CORE_CONTRACT }))
    .digest('hex');
}

export async function startEthereumL1(dataDir: string): Promise<EthereumL1> {
  const dir = resolve(dataDir, 'ethereum');
  mkdirSync(dir, { recursive: true });
  // ganache is a devDependency, loaded only here (never in a Lambda bundle: cdk/bundling.ts keeps it external).
  const server = await withoutNotices(() =>
    (createRequire(import.meta.url)('ganache') as { server(options: object): GanacheServer }).server({
      database: { dbPath: resolve(dir, 'chain') },
      wallet: { deterministic: true, totalAccounts: 10, defaultBalance: 1000 },
      chain: { chainId: CHAIN_ID, hardfork: 'shanghai' },
      miner: { instamine: 'eager' },
      // Its banner, per-request lines and notices would flood the service's log.
      logging: { quiet: true, logger: { log: () => {} } },
    }),
  );
  const port = await freePort();
  await withoutNotices(() => server.listen(port, '127.0.0.1'));
  const call: Call = (method, params) => server.provider.request({ method, params });
  try {
    const accounts = (await call('eth_accounts', [])) as string[];
    const marker = resolve(dir, 'placed.json');
    const id = placementId();
    let placedBefore = '';
    try {
      placedBefore = (JSON.parse(readFileSync(marker, 'utf8')) as { id: string }).id;
    } catch {
      // first start
    }
    const coreCode = (await call('eth_getCode', [STARKNET_CORE_CONTRACT, 'latest'])) as string;
    const placed = placedBefore !== id || coreCode === '0x';
    if (placed) {
      await placeContracts(call, accounts[0]!);
      writeFileSync(marker, JSON.stringify({ id }));
    }
    return { url: `http://127.0.0.1:${port}`, port, chainId: CHAIN_ID, accounts, placed, stop: () => server.close() };
  } catch (e) {
    await server.close().catch(() => {});
    throw e;
  }
}

/**
 * ganache's HTTP layer (µWebSockets) ships native builds for other Node versions and says so on
 * console.warn each time it loads ("not compatible with your Node.js build … Falling back to a
 * NodeJS implementation"): those two notices are dropped, any other warning passes.
 */
const NOTICE = /µWS is not compatible with your Node\.js build|Falling back to a NodeJS implementation/;
async function withoutNotices<T>(fn: () => T | Promise<T>): Promise<T> {
  const warn = console.warn;
  console.warn = (...args: unknown[]) => {
    if (typeof args[0] === 'string' && NOTICE.test(args[0])) return;
    warn(...args);
  };
  try {
    return await fn();
  } finally {
    console.warn = warn;
  }
}

type Name = keyof typeof CONTRACTS;

async function deployAt(call: Call, from: string, name: Name, args: readonly (bigint | string | number)[], target: string): Promise<void> {
  const data = CONTRACTS[name].bytecode + args.map(word).join('');
  const hash = (await call('eth_sendTransaction', [{ from, data, gas: '0x989680' }])) as string;
  const receipt = (await call('eth_getTransactionReceipt', [hash])) as { status: string; contractAddress: string } | null;
  if (receipt?.status !== '0x1') throw new Error(`local L1: deploying ${name} failed`);
  const code = (await call('eth_getCode', [receipt.contractAddress, 'latest'])) as string;
  await call('evm_setAccountCode', [target, code]);
}

async function placeContracts(call: Call, deployer: string): Promise<void> {
  await deployAt(call, deployer, 'StarknetMessaging', [], STARKNET_CORE_CONTRACT);
  for (const [symbol, t] of Object.entries(bridgeRoutes['ethereum-chainb'].tokens)) {
    if (symbol === 'ETH') {
      await deployAt(call, deployer, 'StarkgateEthBridge', [STARKNET_CORE_CONTRACT, t.l2Bridge], t.l1Bridge);
      continue;
    }
    await deployAt(call, deployer, 'LocalToken', [bytes32String(symbol), bytes32String(symbol), t.decimals, deployer], t.l1Token);
    await deployAt(call, deployer, 'StarkgateErc20Bridge', [STARKNET_CORE_CONTRACT, t.l2Bridge, t.l1Token], t.l1Bridge);
  }
}
