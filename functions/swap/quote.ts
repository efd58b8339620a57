import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { quoteInput, quoteView } from '#lib/swap/http.ts';
import { quote } from '#lib/swap/swap.ts';

export const handler = endpoint(routeOf('POST', '/api/swap/quote'), { body: quoteInput, responses: { 200: quoteView } }, async (req) =>
  quote(req.session!.userId, req.body),
);
