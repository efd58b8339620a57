import type { GroupName } from './groups.ts';

/**
 * What one row of the route table is. The rows themselves live in `functions/routes.ts`; the
 * handler stack, the router, the local runtime and the CDK stack take them as values.
 */
export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
/** `none`: public; `session`: 401 without a live session; `optional`: loaded when present. */
export type Auth = 'none' | 'session' | 'optional';
/** Sizing of the function: `crypto` gets more memory (so more CPU) and the circuits layer. */
export type Profile = 'standard' | 'crypto';

export interface Route {
  method: Method;
  /** The route table's form (functions/routes.ts): `/api/storage/download/:cid`. */
  path: string;
  group: GroupName;
  /** The handler module, relative to the repository root; it exports `handler`. */
  handler: string;
  auth: Auth;
  profile?: Profile;
  /** Seconds; the default is 10 (API Gateway's HTTP API caps integrations at 30). */
  timeout?: number;
  /** Takes `Idempotency-Key` (a POST that creates a resource or moves value): a retry gets the first answer. */
  idempotent?: boolean;
  /** Also served from a Lambda function URL with response streaming (API Gateway's HTTP API buffers answers). */
  stream?: boolean;
  /**
   * Local emulator only: a multipart request body reaches the handler as the request stream
   * (`requestBody()`), not buffered whole, so a 100 MB direct upload is imported as it arrives
   * with bounded memory. On AWS the body is in the event (API Gateway takes at most 10 MB, Lambda
   * 6 MB) and large files take the presigned path.
   */
  streamRequest?: boolean;
  /**
   * The OpenAPI operationId (and the typed client's method name) when it is not the one the handler's
   * file name gives (lib/openapi/document.ts operationIdOf): a published id outlives a file's rename.
   */
  operationId?: string;
}
