import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openStore, type ObjectStore } from '../../connectors/storage';
import { describeWithS3, startS3, type RunningS3 } from '../harness/versitygw';
import { sweepCases } from '../harness/staging-sweep-cases';

const describeS3 = describeWithS3();

describeS3('staging sweep on S3 (versitygw)', () => {
  let s3: RunningS3;
  let dataDir = '';
  let store: ObjectStore;
  let prefixes = 0;

  beforeAll(async () => {
    s3 = await startS3();
    dataDir = await mkdtemp(path.join(tmpdir(), 'sweep-s3-'));
  }, 120_000);
  afterAll(async () => {
    await s3?.stop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });
  // A prefix of its own per test: the bucket is the server's, shared by the file.
  beforeEach(() => {
    prefixes += 1;
    store = openStore(
      {
        url: s3.storeUrl(`sweep-${prefixes}`),
        endpoint: s3.endpoint,
        region: s3.region,
        credentials: s3.credentials,
      },
      dataDir,
    );
  });

  sweepCases(() => store);
});
