import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { reply } from '#lib/http/reply.ts';
import { listMine, bugReportList } from '#lib/reports/bug-reports.ts';
import { reporterOf } from '#lib/reports/reporter.ts';

export const handler = endpoint(routeOf('GET', '/api/bug-reports'), { responses: { 200: bugReportList } }, async (req) => {
  const { owner, setCookie } = reporterOf(req);
  return reply(200, { reports: await listMine(owner) }, { cookies: setCookie });
});
