import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { replicaStatus, replicaStatusParams, replicaStatusQuery, replicaStatusSchema } from '#lib/storage/replicas.ts';

export const handler = endpoint(
  routeOf('GET', '/api/storage/replica/status/:cid'),
  { params: replicaStatusParams, query: replicaStatusQuery, responses: { 200: replicaStatusSchema } },
  async (req) => replicaStatus(req.session!.userId, req.params.cid, req.query.challenge),
);
