import net from 'node:net';
import { ephemeralPortLow, findFreePort } from '../../worker/temporal/ports';

function listen(port: number): Promise<net.Server> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen({ port, host: '127.0.0.1', exclusive: true }, () => resolve(server));
  });
}

function close(server: net.Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}

describe('findFreePort (ports picked for the embedded stack, the sandbox and tests)', () => {
  // CI: a port picked for the worker's metrics by a port-0 bind was taken, before the worker started, by a
  // Temporal dev server's own listeners (port-0 binds too): "Failed to start prometheus metrics exporter:
  // Address already in use". A port under the ephemeral range is never one the OS hands out itself.
  it('picks a port under the range the OS hands out to port-0 binds, and free: the process it is for can bind it', async () => {
    const port = await findFreePort();
    expect(port).toBeGreaterThanOrEqual(10_000);
    expect(port).toBeLessThan(ephemeralPortLow());
    const servers = await Promise.all(Array.from({ length: 50 }, () => listen(0)));
    try {
      const given = servers.map((s) => (s.address() as net.AddressInfo).port);
      expect(given).not.toContain(port);
      await close(await listen(port));
    } finally {
      await Promise.all(servers.map(close));
    }
  });
});
