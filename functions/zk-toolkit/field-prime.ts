import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { toolkit } from '#lib/zk/toolkit.ts';

/** GET /api/zk-toolkit/field/prime: → `result` (and `prime`) = r, the BN254 scalar field prime. */
export const handler = endpoint(routeOf('GET', '/api/zk-toolkit/field/prime'), {}, () => toolkit.fieldPrime.run());
