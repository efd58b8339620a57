import * as z from 'zod';
import routesJson from './routes.json' with { type: 'json' };

/**
 * The bridge routes the service offers, as extracted from the bridges' registries into
 * routes.json (lib/bridge/extract-routes.ts). Decoded once at cold start; a malformed file stops
 * the function.
 */
const hyperlaneToken = z.object({
  warpRouteId: z.string(),
  decimals: z.number().int().min(0).max(18),
  originStandard: z.enum(['SealevelHypNative', 'SealevelHypCollateral']),
  originRouter: z.string(),
  originMint: z.string().nullable(),
  destinationStandard: z.string(),
  destinationRouter: z.string(),
  destinationToken: z.string(),
});
const starkgateToken = z.object({
  decimals: z.number().int().min(0).max(18),
  l1Token: z.string(),
  l1Bridge: z.string(),
  l2Bridge: z.string(),
  l2Token: z.string(),
});
const chainRef = z.object({ chain: z.string(), domainId: z.number().int(), mailbox: z.string() });
const schema = z.object({
  'chaina-chainb': z.object({ origin: chainRef, destination: chainRef, tokens: z.record(z.string(), hyperlaneToken), missing: z.array(z.string()) }),
  'ethereum-chainb': z.object({ tokens: z.record(z.string(), starkgateToken), missing: z.array(z.string()) }),
});

export const bridgeRoutes = schema.parse(routesJson);
export type HyperlaneToken = z.infer<typeof hyperlaneToken>;
export type StarkgateToken = z.infer<typeof starkgateToken>;

/** A chaina-chainb token (a Hyperlane warp route) rather than an ethereum-chainb one (StarkGate, no warp route id). */
export const isHyperlaneToken = (t: HyperlaneToken | StarkgateToken): t is HyperlaneToken => 'warpRouteId' in t;

export const BRIDGE_TYPES = ['chaina-chainb', 'ethereum-chainb'] as const;
export type BridgeType = (typeof BRIDGE_TYPES)[number];
export const DIRECTIONS = ['deposit', 'withdraw'] as const;

/** The contract's tokens by route (the ones the registries have no route for are refused: docs/bridge.md). */
export const ROUTE_TOKENS: Record<BridgeType, readonly string[]> = {
  'chaina-chainb': ['SOL', 'DREAMS', 'TRUMP', 'JUP', 'BONK', 'PUMP', 'FARTCOIN'],
  'ethereum-chainb': ['ETH', 'USDC', 'USDT', 'WBTC', 'DAI', 'STRK', 'WETH'],
};

/** The route's token entry; undefined when the registry has none for it. */
export function routeToken(bridgeType: 'chaina-chainb', token: string): HyperlaneToken | undefined;
export function routeToken(bridgeType: 'ethereum-chainb', token: string): StarkgateToken | undefined;
export function routeToken(bridgeType: BridgeType, token: string): HyperlaneToken | StarkgateToken | undefined;
export function routeToken(bridgeType: BridgeType, token: string) {
  const tokens: Record<string, HyperlaneToken | StarkgateToken> = bridgeRoutes[bridgeType].tokens;
  return Object.hasOwn(tokens, token) ? tokens[token] : undefined;
}

/** The chain B token a deposit credits: the synthetic warp token, or StarkGate's L2 token. */
export function destinationToken(bridgeType: BridgeType, token: string): { address: string; decimals: number } | undefined {
  if (bridgeType === 'chaina-chainb') {
    const t = routeToken('chaina-chainb', token);
    return t && { address: t.destinationToken, decimals: t.decimals };
  }
  const t = routeToken('ethereum-chainb', token);
  return t && { address: t.l2Token, decimals: t.decimals };
}
