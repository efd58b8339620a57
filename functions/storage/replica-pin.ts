import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { reply } from '#lib/http/reply.ts';
import { replicaPinInput, replicaStatusSchema, requestReplicaPin } from '#lib/storage/replicas.ts';

/** 202: the copy runs in the background; the answer is the pin's status. */
export const handler = endpoint(routeOf('POST', '/api/storage/replica/pin'), { body: replicaPinInput, responses: { 202: replicaStatusSchema } }, async (req) =>
  reply(202, await requestReplicaPin(req.session!.userId, req.body)),
);
