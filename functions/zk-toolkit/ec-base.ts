import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { ecBase } from '#lib/zk/toolkit/ec.ts';
import { toolkitAnswers } from '#lib/zk/toolkit/responses.ts';

/** GET /api/zk-toolkit/ec/base: → `x`, `y` of Base8, the generator of the prime-order subgroup. */
export const handler = endpoint(routeOf('GET', '/api/zk-toolkit/ec/base'), { responses: { 200: toolkitAnswers.point } }, () => ecBase.run());
