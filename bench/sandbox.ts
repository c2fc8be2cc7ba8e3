/**
 * Sandbox throughput: requests/second for GET /styles?limit=100 over a 10,000-product catalogue, POST /styles,
 * and a few simple reads. The sandbox runs in a child process (its own core); this process drives concurrent
 * keep-alive requests through an undici Pool.
 *
 *   node bin/run-ts.cjs bench/sandbox.ts [--seconds 5] [--connections 16] [--products 10000]
 */
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'undici';
import { startSandbox } from '../sandbox/server';
import { buildDemoSeed } from '../sandbox/seed/demo';
import { BRAND_COMPANY_ID } from '../sandbox/seed/demo-network';

interface Scenario {
  name: string;
  method: 'GET' | 'POST';
  path: (i: number) => string;
  body?: (i: number) => string;
}

function arg(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  const value = index >= 0 ? Number(process.argv[index + 1]) : NaN;
  return Number.isFinite(value) ? value : fallback;
}

/** The demo seed plus `count` brand styles (every fourth a component, ten style types, three genders). */
function writeBigSeed(file: string, count: number): void {
  const seed = buildDemoSeed(Date.now()) as unknown as { catalogue: { products: unknown[] } };
  const types = [
    'st_tshirts',
    'st_jackets',
    'st_trousers',
    'st_buttons',
    'st_zippers',
    'st_woven_fabrics',
    'st_labels',
    'st_yarns',
    'st_packaging',
    'st_knit_fabrics',
  ];
  const start = Date.now() - count * 1000;
  for (let i = 0; i < count; i++) {
    seed.catalogue.products.push({
      id: `style_bench${String(i).padStart(8, '0')}`,
      forCompanyId: BRAND_COMPANY_ID,
      externalId: `BENCH-${i}`,
      name: `Bench style ${i}`,
      styleTypeId: types[i % types.length],
      isComponent: i % 4 === 0,
      gender: ['Women', 'Men', 'Unisex'][i % 3],
      description: `Generated product number ${i} for the sandbox benchmark.`,
      codes: [
        { codeId: 'PLM_ID', codeValue: `BENCH-PLM-${i}` },
        { codeId: 'ERP_ID', codeValue: `BENCH-ERP-${i}` },
      ],
      brands: ['prop_brand_nordic'],
      seasons: ['prop_season_ss25'],
      weight: { unit: 'GRAM', value: 100 + (i % 500) },
      createdAt: new Date(start + i * 1000).toISOString(),
    });
  }
  writeFileSync(file, JSON.stringify(seed));
}

/** Child mode: start the sandbox on a free port and report it to the parent. */
async function serve(seedFile: string): Promise<void> {
  const sandbox = await startSandbox({ port: 0, seedFile, rateLimitPerMinute: 100_000_000, qrDelayMs: 1000 });
  process.send?.({ port: sandbox.port });
  process.on('message', () => void sandbox.close().then(() => process.exit(0)));
}

/** Shared by every run so POST bodies stay unique across the warm-up and the measured run. */
let counter = 0;

async function run(pool: Pool, scenario: Scenario, seconds: number, connections: number) {
  let done = 0;
  let failed = 0;
  const latencies: number[] = [];
  const deadline = Date.now() + seconds * 1000;
  const worker = async () => {
    while (Date.now() < deadline) {
      const i = counter++;
      const started = performance.now();
      const response = await pool.request({
        method: scenario.method,
        path: scenario.path(i),
        headers: { companyapikey: 'sandbox-key-brand', 'content-type': 'application/json' },
        body: scenario.body?.(i),
      });
      await response.body.arrayBuffer();
      latencies.push(performance.now() - started);
      if (response.statusCode >= 400) failed++;
      done++;
    }
  };
  const began = Date.now();
  await Promise.all(Array.from({ length: connections }, worker));
  const elapsed = (Date.now() - began) / 1000;
  latencies.sort((a, b) => a - b);
  const pct = (p: number) =>
    (latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))] ?? 0).toFixed(1);
  return { rps: done / elapsed, done, failed, p50: pct(0.5), p99: pct(0.99) };
}

async function main(): Promise<void> {
  if (process.argv[2] === '--serve') return serve(process.argv[3] as string);
  const seconds = arg('seconds', 5);
  const connections = arg('connections', 16);
  const products = arg('products', 10_000);
  const dir = mkdtempSync(join(tmpdir(), 'sandbox-bench-'));
  const seedFile = join(dir, 'seed.json');
  writeBigSeed(seedFile, products);

  const child = fork(__filename, ['--serve', seedFile], { execArgv: ['--require', 'tsx/cjs'] });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (message) => resolve((message as { port: number }).port));
    child.once('exit', (code) => reject(new Error(`sandbox exited with ${code}`)));
  });
  const pool = new Pool(`http://127.0.0.1:${port}`, { connections, pipelining: 1 });
  const runId = Date.now().toString(36);
  const scenarios: Scenario[] = [
    { name: 'GET /styles?limit=100 (10k styles)', method: 'GET', path: () => '/api/v2/styles?limit=100' },
    {
      name: 'GET /styles?limit=100&page=50&sort=name',
      method: 'GET',
      path: () => '/api/v2/styles?limit=100&page=50&sort=name&order=asc',
    },
    {
      name: 'GET /styles?limit=20&isComponent=true',
      method: 'GET',
      path: () => '/api/v2/styles?limit=20&isComponent=true',
    },
    { name: 'GET /styles/{externalId}', method: 'GET', path: (i) => `/api/v2/styles/BENCH-${i % products}` },
    { name: 'GET /style-types', method: 'GET', path: () => '/api/v2/style-types' },
    {
      name: 'POST /styles',
      method: 'POST',
      path: () => '/api/v2/styles',
      body: (i) =>
        JSON.stringify({
          name: `Posted ${i}`,
          externalId: `POST-${runId}-${i}`,
          codes: [{ codeId: 'PLM_ID', codeValue: `POST-${runId}-${i}` }],
          styleTypeId: 'st_tshirts',
          isComponent: false,
          brands: ['prop_brand_nordic'],
        }),
    },
  ];
  console.log(
    `sandbox bench: ${products} styles, ${connections} keep-alive connections, ${seconds}s per scenario (server in a child process)`,
  );
  try {
    for (const scenario of scenarios) {
      await run(pool, scenario, Math.min(1, seconds), connections); // warm-up
      const result = await run(pool, scenario, seconds, connections);
      console.log(
        `${scenario.name.padEnd(42)} ${result.rps.toFixed(0).padStart(7)} req/s   p50 ${result.p50} ms   p99 ${result.p99} ms   (${result.done} requests, ${result.failed} errors)`,
      );
    }
  } finally {
    await pool.close();
    child.send('stop');
    await new Promise((resolve) => child.once('exit', resolve));
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
