import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Build-time extraction of the bridge routes into lib/bridge/routes.json, from the bridges' own
 * registries (never typed by hand):
 * - chain A → chain B: Hyperlane's warp routes between `solanamainnet` and `starknet` in
 *   `@hyperlane-xyz/registry` (exact version pinned in package.json, a devDependency: the
 *   service reads the JSON, not the package);
 * - Ethereum → chain B: StarkGate's token bridges from starknet-io/starknet-addresses
 *   `bridged_tokens/mainnet.json`, vendored verbatim at a pinned commit and checked by SHA-256.
 *
 * `npx tsx lib/bridge/extract-routes.ts` rewrites routes.json; test/unit/bridge/routes.test.ts
 * fails when the file and the registries disagree.
 */
export const HYPERLANE_REGISTRY_VERSION = '26.1.0';
export const STARKGATE_SOURCE = {
  repository: 'starknet-io/starknet-addresses',
  commit: '6477f533cfeb84bc778bf73d2bea514d7f9825fd',
  path: 'bridged_tokens/mainnet.json',
  sha256: 'c852c0b902820eb96da36197ab262252034362f506428d2580e5128d703e335e',
};
/** The contract's token lists, by route (as routes.ts lists them). */
export const CHAIN_A_TOKENS = ['SOL', 'DREAMS', 'TRUMP', 'JUP', 'BONK', 'PUMP', 'FARTCOIN'] as const;
export const ETHEREUM_TOKENS = ['ETH', 'USDC', 'USDT', 'WBTC', 'DAI', 'STRK', 'WETH'] as const;

const ORIGIN = 'solanamainnet';
const DESTINATION = 'starknet';
const starkgateFile = fileURLToPath(new URL('./registry/starkgate-mainnet.json', import.meta.url));
export const routesFile = fileURLToPath(new URL('./routes.json', import.meta.url));

interface WarpToken {
  chainName: string;
  symbol: string;
  decimals: number;
  standard: string;
  addressOrDenom?: string;
  collateralAddressOrDenom?: string;
  connections?: { token: string }[];
}

interface StarkgateEntry {
  symbol: string;
  decimals: number;
  l1_token_address: string;
  l1_bridge_address: string;
  l2_bridge_address: string;
  l2_token_address: string;
  comment?: string;
}

export async function extractRoutes() {
  // The package's own data files (its index also loads @hyperlane-xyz/sdk, which is not needed here).
  const dist = fileURLToPath(new URL('..', import.meta.resolve('@hyperlane-xyz/registry/chains/schema.json')));
  const json = <T>(...path: string[]) => JSON.parse(readFileSync(join(dist, ...path), 'utf8')) as T;
  const { version } = json<{ version: string }>('..', 'package.json');
  if (version !== HYPERLANE_REGISTRY_VERSION) throw new Error(`@hyperlane-xyz/registry ${version} installed, ${HYPERLANE_REGISTRY_VERSION} pinned`);
  const chain = (name: string) => ({
    chain: name,
    domainId: json<{ domainId: number }>('chains', name, 'metadata.json').domainId,
    mailbox: json<{ mailbox: string }>('chains', name, 'addresses.json').mailbox,
  });
  const warpRouteConfigs: Record<string, { tokens: WarpToken[] }> = {};
  const routesDir = join(dist, 'deployments', 'warp_routes');
  for (const symbolDir of readdirSync(routesDir)) {
    for (const f of readdirSync(join(routesDir, symbolDir))) {
      if (f.endsWith('-config.json')) warpRouteConfigs[`${symbolDir}/${f.slice(0, -'-config.json'.length)}`] = json('deployments', 'warp_routes', symbolDir, f);
    }
  }

  const hyperlane: Record<string, unknown> = {};
  const missingA: string[] = [];
  for (const symbol of CHAIN_A_TOKENS) {
    const found = Object.entries(warpRouteConfigs)
      .map(([id, cfg]) => ({ id, tokens: cfg.tokens as WarpToken[] }))
      .filter(
        ({ tokens }) =>
          tokens.length === 2 &&
          tokens.every((t) => t.symbol.toUpperCase() === symbol) &&
          tokens.some((t) => t.chainName === ORIGIN) &&
          tokens.some((t) => t.chainName === DESTINATION),
      )
      .sort((a, b) => (a.id < b.id ? -1 : 1));
    if (found.length === 0) {
      missingA.push(symbol);
      continue;
    }
    if (found.length > 1) throw new Error(`${symbol}: several warp routes ${found.map((f) => f.id).join(', ')}`);
    const { id, tokens } = found[0]!;
    const o = tokens.find((t) => t.chainName === ORIGIN)!;
    const d = tokens.find((t) => t.chainName === DESTINATION)!;
    if (o.decimals !== d.decimals) throw new Error(`${symbol}: decimals differ across the route (scaling is not handled)`);
    if (!o.connections?.some((c) => c.token.endsWith(`|${DESTINATION}|${d.addressOrDenom}`)))
      throw new Error(`${symbol}: origin does not connect to the destination`);
    hyperlane[symbol] = {
      warpRouteId: id,
      decimals: o.decimals,
      originStandard: o.standard,
      originRouter: o.addressOrDenom,
      /** The SPL mint a collateral route escrows; null for the native coin. */
      originMint: o.collateralAddressOrDenom ?? null,
      destinationStandard: d.standard,
      destinationRouter: d.addressOrDenom,
      /** A synthetic route's token is its router contract. */
      destinationToken: d.addressOrDenom,
    };
  }

  const source = readFileSync(starkgateFile);
  const sha = createHash('sha256').update(source).digest('hex');
  if (sha !== STARKGATE_SOURCE.sha256) throw new Error(`starkgate-mainnet.json has SHA-256 ${sha}, ${STARKGATE_SOURCE.sha256} pinned`);
  const entries = JSON.parse(source.toString('utf8')) as StarkgateEntry[];
  const starkgate: Record<string, unknown> = {};
  const missingE: string[] = [];
  for (const symbol of ETHEREUM_TOKENS) {
    // The current bridge of a token: entries with a comment are older bridges (for example "Dai v0").
    const found = entries.filter((e) => e.symbol === symbol && e.comment === undefined);
    if (found.length === 0) {
      missingE.push(symbol);
      continue;
    }
    if (found.length > 1) throw new Error(`${symbol}: several StarkGate bridges`);
    const e = found[0]!;
    starkgate[symbol] = {
      decimals: e.decimals,
      l1Token: e.l1_token_address,
      l1Bridge: e.l1_bridge_address,
      l2Bridge: e.l2_bridge_address,
      l2Token: e.l2_token_address,
    };
  }

  return {
    sources: { hyperlane: { package: '@hyperlane-xyz/registry', version: HYPERLANE_REGISTRY_VERSION }, starkgate: STARKGATE_SOURCE },
    'chaina-chainb': { origin: chain(ORIGIN), destination: chain(DESTINATION), tokens: hyperlane, missing: missingA },
    'ethereum-chainb': { tokens: starkgate, missing: missingE },
  };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(routesFile, `${JSON.stringify(await extractRoutes(), null, 2)}\n`);
  console.log(`wrote ${routesFile}`);
}
