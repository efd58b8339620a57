import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { groupIdParams, groupResponse, readGroup } from '#lib/attest/groups.ts';

/** GET /api/attest/groups/:id (public) → {id, name, root, size, depth, createdAt, recentRoots}. */
export const handler = endpoint(routeOf('GET', '/api/attest/groups/:id'), { params: groupIdParams, responses: { 200: groupResponse } }, (req) =>
  readGroup(req.params.id),
);
