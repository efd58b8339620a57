import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { extractRoutes, routesFile } from '#lib/bridge/extract-routes.ts';
import { isHyperlaneToken, ROUTE_TOKENS, routeToken } from '#lib/bridge/routes.ts';

describe('bridge routes (lib/bridge/routes.json)', () => {
  it('equal what the pinned registries say (@hyperlane-xyz/registry 26.1.0, StarkGate bridged_tokens at the pinned commit)', async () => {
    expect(JSON.parse(readFileSync(routesFile, 'utf8'))).toEqual(await extractRoutes());
  });

  it('cover every token API.md lists, with registry addresses', () => {
    for (const token of ROUTE_TOKENS['chaina-chainb']) {
      const r = routeToken('chaina-chainb', token);
      expect(r, token).toBeDefined();
      expect(r!.originRouter).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/);
      expect(r!.destinationToken).toMatch(/^0x[0-9a-f]{64}$/);
    }
    for (const token of ROUTE_TOKENS['ethereum-chainb']) {
      const r = routeToken('ethereum-chainb', token);
      expect(r, token).toBeDefined();
      expect(r!.l1Bridge).toMatch(/^0x[0-9a-fA-F]{40}$/);
    }
    // Known values from the registries themselves.
    expect(routeToken('chaina-chainb', 'SOL')!.originRouter).toBe('EfSiyLayPpfZ7uGetjmjxYh6r3LjoJjmHkkxRJmDpgaT');
    expect(routeToken('ethereum-chainb', 'STRK')!.l2Token).toBe('0x04718f5a0fc34cc1af16a1cdee98ffb20c31f5cd61d6ab07201858f4287c938d');
    expect(routeToken('ethereum-chainb', 'toString')).toBeUndefined();
  });

  it('isHyperlaneToken tells the routes apart: every chaina-chainb token is a Hyperlane warp route, no ethereum-chainb token is', () => {
    expect(ROUTE_TOKENS['chaina-chainb'].map((t) => isHyperlaneToken(routeToken('chaina-chainb', t)!))).toEqual(ROUTE_TOKENS['chaina-chainb'].map(() => true));
    expect(ROUTE_TOKENS['ethereum-chainb'].map((t) => isHyperlaneToken(routeToken('ethereum-chainb', t)!))).toEqual(
      ROUTE_TOKENS['ethereum-chainb'].map(() => false),
    );
  });
});
