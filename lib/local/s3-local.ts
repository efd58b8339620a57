import S3rver from 's3rver';
import { mkdirSync } from 'node:fs';

export interface S3Local {
  endpoint: string;
  /** Stops the server and starts it again on the same port and data (fault tests). */
  restart(opts?: { downMs?: number }): Promise<void>;
  stop(): Promise<void>;
}

/** A local S3 API (npm `s3rver`) on loopback; objects are files under `dir`. */
export async function startS3Local(dir: string): Promise<S3Local> {
  mkdirSync(dir, { recursive: true });
  const start = async (port: number) => {
    const server = new S3rver({ address: '127.0.0.1', port, directory: dir, silent: true });
    const { port: bound } = (await server.run()) as { port: number };
    return { server, port: bound };
  };
  let current = await start(0);
  const port = current.port;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    async restart({ downMs = 0 } = {}) {
      await current.server.close();
      if (downMs) await new Promise((r) => setTimeout(r, downMs));
      current = await start(port);
    },
    stop: () => current.server.close() as Promise<void>,
  };
}
