import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { z } from 'zod';
import { ENV_VARS } from '../../worker/config';
import { repoRoot } from '../../worker/paths';
import { SEARCH_ATTRIBUTES } from '../../worker/search-attributes';

const serviceSchema = z.looseObject({
  image: z.string().optional(),
  build: z
    .union([z.string(), z.looseObject({ context: z.string(), dockerfile: z.string().optional() })])
    .optional(),
  environment: z
    .union([z.record(z.string(), z.union([z.string(), z.number(), z.null()])), z.array(z.string())])
    .optional(),
  depends_on: z
    .union([z.array(z.string()), z.record(z.string(), z.looseObject({ condition: z.string().optional() }))])
    .optional(),
  command: z.union([z.string(), z.array(z.string())]).optional(),
  ports: z.array(z.string()).optional(),
  profiles: z.array(z.string()).optional(),
  healthcheck: z.looseObject({ test: z.union([z.string(), z.array(z.string())]) }).optional(),
});
type Service = z.infer<typeof serviceSchema>;

const composeSchema = z.looseObject({ services: z.record(z.string(), serviceSchema) });

const compose = composeSchema.parse(parse(readFileSync(path.join(repoRoot(), 'docker-compose.yml'), 'utf8')));
const services = compose.services;

function service(name: string): Service {
  const found = services[name];
  if (!found) throw new Error(`docker-compose.yml has no service ${name}`);
  return found;
}

function env(s: Service): Record<string, string> {
  if (Array.isArray(s.environment)) {
    return Object.fromEntries(
      s.environment.map((entry) => [entry.split('=')[0] ?? '', entry.split('=').slice(1).join('=')]),
    );
  }
  return Object.fromEntries(Object.entries(s.environment ?? {}).map(([k, v]) => [k, String(v ?? '')]));
}

function dependsOn(s: Service): Record<string, string | undefined> {
  if (Array.isArray(s.depends_on)) return Object.fromEntries(s.depends_on.map((name) => [name, undefined]));
  return Object.fromEntries(Object.entries(s.depends_on ?? {}).map(([name, d]) => [name, d.condition]));
}

const commandText = (s: Service): string => [s.command ?? []].flat().join('\n');
const tagOf = (image: string | undefined): string => image?.split(':')[1] ?? '';

describe('docker-compose.yml', () => {
  it('runs PostgreSQL, the Temporal server, its Web UI and the worker', () => {
    expect(Object.keys(services)).toEqual(
      expect.arrayContaining([
        'postgresql',
        'temporal-schema',
        'temporal',
        'temporal-setup',
        'temporal-ui',
        'worker',
      ]),
    );
    expect(service('postgresql').image).toMatch(/^postgres:\d+/);
    expect(service('temporal').image).toMatch(/^temporalio\/server:1\.\d+\.\d+$/);
    expect(service('temporal-ui').image).toMatch(/^temporalio\/ui:2\.\d+\.\d+$/);
    expect(service('temporal-ui').ports).toContain('8080:8080');
    expect(service('temporal').ports).toContain('7233:7233');
  });

  it('pins every image, and the schema tools to the server version', () => {
    for (const [name, s] of Object.entries(services)) {
      if (s.image) expect([name, tagOf(s.image)]).not.toEqual([name, 'latest']);
      if (s.image) expect([name, tagOf(s.image)]).not.toEqual([name, '']);
    }
    expect(tagOf(service('temporal-schema').image)).toBe(tagOf(service('temporal').image));
    expect(tagOf(service('temporal-setup').image)).toBe(tagOf(service('temporal').image));
  });

  it('keeps the Temporal server on PostgreSQL, after its schema is set up', () => {
    expect(env(service('temporal'))).toMatchObject({ DB: 'postgres12', POSTGRES_SEEDS: 'postgresql' });
    expect(dependsOn(service('temporal-schema'))).toEqual({ postgresql: 'service_healthy' });
    expect(dependsOn(service('temporal'))).toEqual({ 'temporal-schema': 'service_completed_successfully' });
    expect(commandText(service('temporal-schema'))).toMatch(/temporal-sql-tool --plugin postgres12/);
  });

  it('registers the search attributes the jobs use before the worker starts', () => {
    const setup = commandText(service('temporal-setup'));
    for (const key of SEARCH_ATTRIBUTES) expect(setup).toContain(key.name);
    expect(setup).toContain('--type Keyword');
    expect(dependsOn(service('temporal-setup'))).toEqual({ temporal: 'service_healthy' });
    expect(dependsOn(service('worker'))).toMatchObject({
      'temporal-setup': 'service_completed_successfully',
    });
  });

  it("builds the worker from the Dockerfile and gives it exactly the config's worker variables", () => {
    const worker = service('worker');
    expect(worker.build).toMatchObject({ context: '.', dockerfile: 'Dockerfile' });
    const expected = ENV_VARS.filter((v) => v.scope === 'worker').map((v) => v.name);
    expect(Object.keys(env(worker)).sort()).toEqual([...expected].sort());
    expect(env(worker).TEMPORAL_ADDRESS).toBe('temporal:7233');
    // The API settings must come from the operator: compose refuses to start without them.
    expect(env(worker).TRACEABILITY_BASE_URL).toMatch(/^\$\{TRACEABILITY_BASE_URL:\?/);
    expect(env(worker).TRACEABILITY_API_KEY).toMatch(/^\$\{TRACEABILITY_API_KEY:\?/);
  });

  // Issue 20: "a MinIO service with a bucket created at start, the worker configured for it, a worker healthcheck".
  it('gives the worker a MinIO bucket: created before the worker starts, reached with the same credentials', () => {
    const worker = env(service('worker'));
    const store = /^s3:\/\/([^/]+)/.exec(worker.TRACE_STORE_URL ?? '');
    expect(store).not.toBeNull();
    const bucket = store![1];
    expect(service('minio').image).toMatch(/^minio\/minio:RELEASE\./);
    expect(commandText(service('minio'))).toMatch(/server\n\/data/);
    const port = /^http:\/\/minio:(\d+)$/.exec(worker.AWS_ENDPOINT_URL_S3 ?? '');
    expect(port?.[1]).toBe('9000');
    expect(service('minio').ports).toContain('9000:9000');
    expect(service('minio').healthcheck).toBeDefined();
    expect(dependsOn(service('minio-setup'))).toEqual({ minio: 'service_healthy' });
    expect(commandText(service('minio-setup'))).toContain(`mc mb --ignore-existing store/${bucket}`);
    expect(dependsOn(service('worker'))).toMatchObject({ 'minio-setup': 'service_completed_successfully' });
    const minio = env(service('minio'));
    expect(worker.AWS_ACCESS_KEY_ID).toBe(minio.MINIO_ROOT_USER);
    expect(worker.AWS_SECRET_ACCESS_KEY).toBe(minio.MINIO_ROOT_PASSWORD);
    expect(env(service('minio-setup'))).toMatchObject(minio);
  });

  it('checks the worker is healthy through its metrics endpoint', () => {
    const worker = service('worker');
    const test = [worker.healthcheck?.test ?? []].flat().join(' ');
    const metricsPort = (env(worker).TRACE_METRICS_ADDRESS ?? '').split(':')[1];
    expect(test).toContain(`127.0.0.1:${metricsPort}/metrics`);
  });

  it('offers the sandbox only behind a profile', () => {
    expect(service('sandbox').profiles).toEqual(['sandbox']);
    expect(commandText(service('sandbox'))).toMatch(/trace-sync\.cjs\nsandbox\n--host\n0\.0\.0\.0/);
  });
});

describe('Dockerfile', () => {
  const dockerfile = readFileSync(path.join(repoRoot(), 'Dockerfile'), 'utf8');

  it('builds in one stage and runs the compiled worker in a slim one', () => {
    const stages = dockerfile.match(/^FROM\s+\S+/gm) ?? [];
    expect(stages).toHaveLength(2);
    expect(stages.every((from) => /node:20/.test(from))).toBe(true);
    expect(dockerfile).toMatch(/RUN npm ci/);
    expect(dockerfile).toMatch(/npm run build/);
    expect(dockerfile).toMatch(/CMD \["node", "dist\/worker\/main\.js"\]/);
  });

  it('copies every source folder the build compiles', () => {
    const tsconfig = z
      .object({ include: z.array(z.string()) })
      .parse(JSON.parse(readFileSync(path.join(repoRoot(), 'tsconfig.build.json'), 'utf8')));
    for (const folder of tsconfig.include) expect(dockerfile).toContain(`COPY ${folder} ./${folder}`);
  });
});
