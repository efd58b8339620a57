import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { ipfsParams, ipfsQuery, trustlessCar } from '#lib/storage/trustless-gateway.ts';
import { trustlessCarAnswers } from '#lib/storage/responses.ts';

/** Public: the share token (`?token=`) is the capability; the answer is a CAR (or 302 to one). */
export const handler = endpoint(
  routeOf('GET', '/api/storage/ipfs/:cid'),
  { params: ipfsParams, query: ipfsQuery, responses: trustlessCarAnswers },
  async (req) => trustlessCar(req.params.cid, req.query, req.headers.accept),
);
