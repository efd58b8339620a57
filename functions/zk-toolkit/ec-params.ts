import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { ecParams } from '#lib/zk/toolkit/ec.ts';
import { toolkitAnswers } from '#lib/zk/toolkit/responses.ts';

/** GET /api/zk-toolkit/ec/params: → Baby JubJub `a`, `d`, `order`, `subOrder`, `cofactor`, `generator`, `base`, `prime`. */
export const handler = endpoint(routeOf('GET', '/api/zk-toolkit/ec/params'), { responses: { 200: toolkitAnswers.ecParams } }, () => ecParams.run());
