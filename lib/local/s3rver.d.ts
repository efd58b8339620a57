declare module 's3rver' {
  export default class S3rver {
    constructor(options: Record<string, unknown>);
    run(): Promise<{ port: number; address: string }>;
    close(): Promise<void>;
  }
}
