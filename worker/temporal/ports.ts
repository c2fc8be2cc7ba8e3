import { readFileSync } from 'node:fs';
import net from 'node:net';

/** The lowest port a port picked by `findFreePort` may have (under it, well-known and registered services). */
const PICKED_PORT_LOW = 10_000;

/**
 * Where the OS hands out ports of its own (to port-0 binds and outgoing connections): Linux tells it; macOS
 * and Windows use 49152-65535 by default, and 32768 is under both.
 */
export function ephemeralPortLow(): number {
  try {
    const [low] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/);
    const port = Number(low);
    if (Number.isInteger(port) && port > 0) return port;
  } catch {
    // not Linux
  }
  return 32_768;
}

/**
 * A TCP port free on the host now, for another process (or a later bind) to take: picked under the OS's
 * ephemeral range, where the OS never hands out a port itself. Picked by a port-0 bind instead, the port was
 * the kernel's to give again, and a Temporal dev server's own listeners took one before the worker that was
 * to serve metrics on it had started ("Address already in use", CI). Falls back to a port-0 bind where the
 * ephemeral range leaves no room under it.
 */
export async function findFreePort(host = '127.0.0.1'): Promise<number> {
  const high = ephemeralPortLow();
  for (let attempt = 0; high - PICKED_PORT_LOW > 1_000 && attempt < 50; attempt++) {
    const port = PICKED_PORT_LOW + Math.floor(Math.random() * (high - PICKED_PORT_LOW));
    if (await isPortFree(port, host)) return port;
  }
  return portFromKernel(host);
}

function portFromKernel(host: string): Promise<number> {
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
