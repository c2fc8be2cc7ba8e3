import net from 'node:net';
import { Agent } from 'undici';
import { TraceabilityClient } from '../../../connectors/traceability';
import { caught } from '../../harness/errors';
import { startStub } from './stub-server';

const KEY = 'k3y$ecret-value-123';
const fastRetries = { backoffBaseMs: 1, backoffCapMs: 5, maxRetries: 1 };

/** A port nothing listens on: taken from the system, then let go. */
async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * What the operator reads when a call gets no answer: a URL that is wrong (nothing listens) and a connection the API
 * (or a proxy) closed mid-call are told apart, so the second does not send them to check a URL that is right.
 */
describe('the hint a network failure carries', () => {
  it('nothing listening at the base URL: check TRACEABILITY_BASE_URL', async () => {
    const port = await freePort();
    const client = new TraceabilityClient({
      baseUrl: `http://user:pw@127.0.0.1:${port}/api/v2`,
      apiKey: KEY,
      ...fastRetries,
    });
    const error = await caught(client.styleTypes.list());
    expect(error.message).toContain('connection failed (ECONNREFUSED)');
    expect(error.message).toContain(
      `the API at 127.0.0.1:${port} could not be reached: check TRACEABILITY_BASE_URL of the worker`,
    );
    expect(error.message).not.toContain('dropped');
    expect(error.message).not.toMatch(/pw|user|api\/v2|k3y/);
    await client.close();
  });

  it('a connection accepted and then closed mid-call says it dropped, not that the URL is wrong', async () => {
    const stub = await startStub((_req, res) => res.socket?.destroy());
    const host = new URL(stub.baseUrl).host;
    const client = new TraceabilityClient({ baseUrl: stub.baseUrl, apiKey: KEY, ...fastRetries });
    const error = await caught(client.styleTypes.list());
    expect(stub.seen.length).toBeGreaterThan(0);
    expect(error.message).toContain(
      `the connection to ${host} dropped during the call; the API or a proxy between closed it`,
    );
    expect(error.message).not.toContain('could not be reached');
    expect(error.message).not.toContain('TRACEABILITY_BASE_URL');
    expect(error.message).not.toContain(KEY);
    expect(error.message).not.toContain(stub.baseUrl);
    await client.close();
    await stub.close();
  });

  it('an answer cut off half-way through its body says it dropped too', async () => {
    const stub = await startStub((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
      res.write('{"metadata": {"success": true}, "data": [');
      setTimeout(() => res.socket?.destroy(), 20);
    });
    const host = new URL(stub.baseUrl).host;
    const client = new TraceabilityClient({ baseUrl: stub.baseUrl, apiKey: KEY, ...fastRetries });
    const error = await caught(client.styleTypes.list());
    expect(error.message).toContain(`the connection to ${host} dropped during the call`);
    expect(error.message).not.toContain('could not be reached');
    await client.close();
    await stub.close();
  });

  // A route gone (ENETUNREACH: no network to the host, a VPN down) fails before a byte is sent, as a refused or
  // unknown host does: an order create is re-sent, not reported as maybe placed (which sends the sync to look it up).
  it.each(['ENETUNREACH', 'EHOSTUNREACH', 'ECONNREFUSED'])(
    'a connection that fails with %s never reached the API: an order create is retried and not flagged maybeCommitted',
    async (code) => {
      let connects = 0;
      const dispatcher = new Agent({
        connect: (_options, callback) => {
          connects++;
          callback(Object.assign(new Error(`connect ${code} 10.9.8.7:443`), { code }), null);
        },
      });
      const client = new TraceabilityClient({
        baseUrl: 'http://api.example.test/api/v2',
        apiKey: KEY,
        dispatcher,
        ...fastRetries,
      });
      const error = await caught(
        client.orders.create({ orderNumber: 'PO-9', buyerCompanyId: 'b', supplierCompanyId: 's' }),
      );
      expect(error).toMatchObject({ code: 'network_error', maybeCommitted: false, attempts: 2 });
      expect(connects).toBe(2);
      expect(error.message).toContain(`connection failed (${code})`);
      expect(error.message).toContain('could not be reached: check TRACEABILITY_BASE_URL of the worker');
      await client.close();
      await dispatcher.close();
    },
  );
});
