import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { groupIdParams, membersResponse, readMembers } from '#lib/attest/groups.ts';

/** GET /api/attest/groups/:id/members (public) → {commitments}: what a member needs to compute its Merkle path. */
export const handler = endpoint(routeOf('GET', '/api/attest/groups/:id/members'), { params: groupIdParams, responses: { 200: membersResponse } }, (req) =>
  readMembers(req.params.id),
);
