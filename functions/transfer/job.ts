import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { jobParams, jobResponse } from '#lib/transfer/schemas.ts';
import { getJob } from '#lib/transfer/withdrawals.ts';

export const handler = endpoint(routeOf('GET', '/api/transfer/jobs/:id'), { params: jobParams, responses: { 200: jobResponse } }, async (req) =>
  getJob(req.params.id),
);
