import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { toolkit } from '#lib/zk/toolkit.ts';

/** GET /api/zk-toolkit/field/random: → `result`, a uniform element of [0, r). */
export const handler = endpoint(routeOf('GET', '/api/zk-toolkit/field/random'), {}, () => toolkit.fieldRandom.run());
