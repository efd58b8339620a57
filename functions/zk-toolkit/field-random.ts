import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { fieldRandom } from '#lib/zk/toolkit/field.ts';
import { toolkitAnswers } from '#lib/zk/toolkit/responses.ts';

/** GET /api/zk-toolkit/field/random: → `result`, a uniform element of [0, r). */
export const handler = endpoint(routeOf('GET', '/api/zk-toolkit/field/random'), { responses: { 200: toolkitAnswers.fieldResult } }, () => fieldRandom.run());
