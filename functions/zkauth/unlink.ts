import * as z from 'zod';
import { routeOf } from '#functions/routes.ts';
import { unlinkProvider } from '#lib/auth/oauth/accounts.ts';
import { PROVIDER_IDS } from '#lib/auth/oauth/providers.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { unlinkResponse } from '#lib/auth/oauth/responses.ts';

const body = z.object({ provider: z.enum(PROVIDER_IDS) });

export const handler = endpoint(routeOf('POST', '/api/zkauth/unlink'), { body, responses: { 200: unlinkResponse } }, async (req) => ({
  unlinked: true,
  provider: req.body.provider,
  remainingProviders: await unlinkProvider(req.session!.userId, req.body.provider),
}));
