import * as z from 'zod';
import { decoder, listPartition, putNew } from './items.ts';

/**
 * Bug reports, by reporter (a user id when signed in, else an anonymous client id); no TTL:
 *
 *   BUGS#<owner> / <createdAt>#<id>   BugReport
 */
const bugReportSchema = z.object({
  id: z.string(),
  title: z.string(),
  description: z.string(),
  severity: z.enum(['low', 'medium', 'high', 'critical']),
  steps: z.string().optional(),
  context: z.record(z.string(), z.unknown()).optional(),
  createdAt: z.string(),
});
export type BugReport = z.infer<typeof bugReportSchema>;
export const bugReportDecoder = decoder('bug report', bugReportSchema);

const partition = (owner: string) => `BUGS#${owner}`;

export async function putBugReport(owner: string, report: BugReport): Promise<void> {
  await putNew({ pk: partition(owner), sk: `${report.createdAt}#${report.id}`, ...report });
}

export const listBugReports = (owner: string): Promise<BugReport[]> => listPartition(partition(owner), bugReportDecoder, { newestFirst: true });
