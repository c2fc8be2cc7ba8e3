/**
 * The responsible persons the ERP push learned (persons-store.ts) are one document per company in the run-data store,
 * which several workers update: two that read it before either writes must both keep their additions, on a folder
 * and on S3 (versitygw). Each worker here has a data folder of its own bound to the same store, as two worker hosts.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  learnedPersonsFile,
  restoreLearnedPersons,
  storeLearnedPersons,
} from '../../connectors/erp-orders/persons-store';
import { PersonDirectory } from '../../connectors/erp-orders/persons';
import { bindDataDir, LocalStore, S3Store, s3ClientFor, type ObjectStore } from '../../connectors/storage';
import { describeWithS3, startS3, type RunningS3 } from '../harness/versitygw';

const COMPANY = 'cmp_brand';

/** Holds the first read of the document until a second one has been made too: both workers read, then both write. */
class BothReadFirst {
  private reads = 0;
  private release: (() => void) | undefined;
  /** True once the second read released the first (not the timeout): the two workers did interleave. */
  interleaved = false;

  async read(): Promise<void> {
    this.reads += 1;
    if (this.reads === 2 && this.release) {
      this.interleaved = true;
      this.release();
    }
    if (this.reads !== 1) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 5_000);
      this.release = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }
}

const isDocument = (key: string) => key.endsWith(`responsible-persons-${COMPANY}.json`);

class InterleavedLocalStore extends LocalStore {
  readonly gate = new BothReadFirst();
  override async get(key: string): Promise<Buffer | null> {
    const body = await super.get(key);
    if (isDocument(key)) await this.gate.read();
    return body;
  }
}

class InterleavedS3Store extends S3Store {
  readonly gate = new BothReadFirst();
  override async get(key: string): Promise<Buffer | null> {
    const body = await super.get(key);
    if (isDocument(key)) await this.gate.read();
    return body;
  }
  override async getWithETag(key: string): Promise<{ body: Buffer; etag: string } | null> {
    const read = await super.getWithETag(key);
    if (isDocument(key)) await this.gate.read();
    return read;
  }
}

async function twoWorkersStoreAtOnce(
  store: ObjectStore & { gate: BothReadFirst },
  folders: string[],
): Promise<void> {
  const workers = await Promise.all(
    ['x', 'y'].map(async (name) => {
      const dataDir = await mkdtemp(path.join(tmpdir(), `persons-worker-${name}-`));
      folders.push(dataDir);
      bindDataDir(dataDir, store);
      const persons = new PersonDirectory();
      persons.learn([`${name}@example.com`], [`user_${name}`]);
      return { dataDir, persons };
    }),
  );
  await Promise.all(
    workers.map(({ dataDir, persons }) =>
      storeLearnedPersons(learnedPersonsFile(dataDir, COMPANY), COMPANY, persons),
    ),
  );
  expect(store.gate.interleaved).toBe(true);
  const next = new PersonDirectory();
  const third = await mkdtemp(path.join(tmpdir(), 'persons-worker-z-'));
  folders.push(third);
  bindDataDir(third, store);
  await restoreLearnedPersons(learnedPersonsFile(third, COMPANY), COMPANY, next);
  expect(Object.fromEntries(next.ids)).toEqual({ 'x@example.com': 'user_x', 'y@example.com': 'user_y' });
}

describe('learned responsible persons stored by two workers at once', () => {
  const folders: string[] = [];
  afterAll(async () => {
    for (const folder of folders) await rm(folder, { recursive: true, force: true });
  });

  it('on a shared folder, both keep their additions', async () => {
    const root = await mkdtemp(path.join(tmpdir(), 'persons-store-shared-'));
    folders.push(root);
    await twoWorkersStoreAtOnce(new InterleavedLocalStore(root), folders);
  });
});

describeWithS3()('learned responsible persons stored by two workers at once on S3 (versitygw)', () => {
  let s3: RunningS3;
  const folders: string[] = [];
  beforeAll(async () => {
    s3 = await startS3();
  }, 120_000);
  afterAll(async () => {
    await s3?.stop();
    for (const folder of folders) await rm(folder, { recursive: true, force: true });
  });

  it('on one bucket, both keep their additions', async () => {
    const client = s3ClientFor({
      url: s3.storeUrl('persons'),
      endpoint: s3.endpoint,
      region: s3.region,
      credentials: s3.credentials,
    });
    await twoWorkersStoreAtOnce(new InterleavedS3Store(client, s3.bucket, 'persons'), folders);
  });
});
