import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { reply } from '#lib/http/reply.ts';
import { bugReportInput, create, bugReportCreated } from '#lib/reports/bug-reports.ts';
import { reporterOf } from '#lib/reports/reporter.ts';

export const handler = endpoint(routeOf('POST', '/api/bug-reports'), { body: bugReportInput, responses: { 201: bugReportCreated } }, async (req) => {
  const { owner, setCookie } = reporterOf(req);
  const report = await create(owner, req.body);
  return reply(201, { id: report.id, createdAt: report.createdAt }, { cookies: setCookie });
});
