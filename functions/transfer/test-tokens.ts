import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { mintTestTokens, testTokensInput, testTokensResponse } from '#lib/transfer/test-token.ts';

export const handler = endpoint(routeOf('POST', '/api/transfer/test-tokens'), { body: testTokensInput, responses: { 200: testTokensResponse } }, async (req) =>
  mintTestTokens(req.session!.userId, req.body),
);
