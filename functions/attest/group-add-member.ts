import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { reply } from '#lib/http/reply.ts';
import { addMember, addMemberInput, addMemberResponse, groupIdParams } from '#lib/attest/groups.ts';

/** POST /api/attest/groups/:id/members {commitment} (the owner) → 201 {index, commitment, root, size}. */
export const handler = endpoint(
  routeOf('POST', '/api/attest/groups/:id/members'),
  { params: groupIdParams, body: addMemberInput, responses: { 201: addMemberResponse } },
  async (req) => reply(201, await addMember(req.session!.userId, req.params.id, req.body.commitment)),
);
