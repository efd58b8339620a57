import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { reply } from '#lib/http/reply.ts';
import { createGroup, createGroupInput, createGroupResponse } from '#lib/attest/groups.ts';

/** POST /api/attest/groups {name} → 201 {group}: an empty group owned by the caller. */
export const handler = endpoint(routeOf('POST', '/api/attest/groups'), { body: createGroupInput, responses: { 201: createGroupResponse } }, async (req) =>
  reply(201, await createGroup(req.session!.userId, req.body)),
);
