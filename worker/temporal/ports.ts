import net from 'node:net';

/** Asks the OS for a free TCP port on the host (port 0 semantics), then releases it. */
export function findFreePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.once('error', reject);
    server.listen({ port: 0, host }, () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => (port ? resolve(port) : reject(new Error('could not pick a free port'))));
    });
  });
}

export function isPortFree(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen({ port, host, exclusive: true }, () => server.close(() => resolve(true)));
  });
}

export class PortInUseError extends Error {
  constructor(
    readonly port: number,
    readonly purpose: string,
  ) {
    super(`Port ${port} (${purpose}) is already in use`);
    this.name = 'PortInUseError';
  }
}

/** Port 0 means "pick a free one"; any other port must be free now. */
export async function resolvePort(port: number, purpose: string, host = '127.0.0.1'): Promise<number> {
  if (port === 0) return findFreePort(host);
  if (!(await isPortFree(port, host))) throw new PortInUseError(port, purpose);
  return port;
}
