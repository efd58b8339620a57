import * as z from 'zod';
import { decoder, listPartition, putNew } from './items.ts';

/**
 * Bug reports, by reporter (a user id when signed in, else an anonymous client id); no TTL:
 *
 *   BUGS#<owner> / <createdAt>#<id>   BugReport, its `context` kept as JSON text (`contextJson`)
 *
 * The context is the client's arbitrary JSON: as a DynamoDB map it would fail on what DynamoDB
 * cannot hold (an empty key, a number beyond 38 digits or 1e±126); as text it round-trips exactly.
 */
const json = z.string().transform((text, ctx) => {
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    ctx.addIssue({ code: 'custom', message: 'not JSON' });
    return z.NEVER;
  }
});
const bugReportSchema = z
  .object({
    id: z.string(),
    title: z.string(),
    description: z.string(),
    severity: z.enum(['low', 'medium', 'high', 'critical']),
    steps: z.string().optional(),
    contextJson: json.optional(),
    /** Reports stored before the context was kept as text. */
    context: z.record(z.string(), z.unknown()).optional(),
    createdAt: z.string(),
  })
  .transform(({ contextJson, context, ...report }): BugReport => {
    const kept = contextJson ?? context;
    return kept === undefined ? report : { ...report, context: kept };
  });
export interface BugReport {
  id: string;
  title: string;
  description: string;
  severity: 'low' | 'medium' | 'high' | 'critical';
  steps?: string;
  context?: Record<string, unknown>;
  createdAt: string;
}
export const bugReportDecoder = decoder('bug report', bugReportSchema);

const partition = (owner: string) => `BUGS#${owner}`;

export async function putBugReport(owner: string, report: BugReport): Promise<void> {
  const { context, ...fields } = report;
  await putNew({
    pk: partition(owner),
    sk: `${report.createdAt}#${report.id}`,
    ...fields,
    contextJson: context === undefined ? undefined : JSON.stringify(context),
  });
}

export const listBugReports = (owner: string): Promise<BugReport[]> => listPartition(partition(owner), bugReportDecoder, { newestFirst: true });
