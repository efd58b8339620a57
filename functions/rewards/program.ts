import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { program, programView } from '#lib/rewards/rewards.ts';

export const handler = endpoint(routeOf('GET', '/api/rewards/program'), { responses: { 200: programView } }, async () => program());
