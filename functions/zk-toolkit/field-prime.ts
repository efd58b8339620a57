import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { fieldPrime } from '#lib/zk/toolkit/field.ts';
import { toolkitAnswers } from '#lib/zk/toolkit/responses.ts';

/** GET /api/zk-toolkit/field/prime: → `result` (and `prime`) = r, the BN254 scalar field prime. */
export const handler = endpoint(routeOf('GET', '/api/zk-toolkit/field/prime'), { responses: { 200: toolkitAnswers.fieldPrime } }, () => fieldPrime.run());
