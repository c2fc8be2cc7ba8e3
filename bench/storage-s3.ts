/**
 * The run-data store on S3 (versitygw on a free port over a temp folder): multipart upload and streamed read of a
 * big input (throughput, and the memory they take: it must not grow with the file), a staged NDJSON batch, and the
 * journal (one object per entry) at the pace a batch writes it and as a retried attempt reads it back.
 * Run: node bin/run-ts.cjs bench/storage-s3.ts [--mb 256] [--entries 1000]
 */
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { z } from 'zod';
import { JsonLinesJournal, StagingStore } from '../connectors/staging';
import { configureStorage } from '../connectors/storage';
import { startVersitygw } from '../test/harness/versitygw';

const arg = (name: string, fallback: number): number => {
  const at = process.argv.indexOf(name);
  return at > 0 ? Number(process.argv[at + 1]) : fallback;
};
const MB = arg('--mb', 256);
const ENTRIES = arg('--entries', 1000);

const mib = (bytes: number): string => (bytes / 1024 / 1024).toFixed(1);

async function main(): Promise<void> {
  const s3 = await startVersitygw();
  if ('skipped' in s3) {
    console.log(`skipped: ${s3.skipped}`);
    return;
  }
  const dataDir = await mkdtemp(path.join(tmpdir(), 'bench-store-'));
  try {
    const store = configureStorage(dataDir, {
      url: s3.storeUrl('bench'),
      endpoint: s3.endpoint,
      region: s3.region,
      credentials: s3.credentials,
    });
    const chunk = Buffer.alloc(1024 * 1024, 'trace connectors bench ');
    let peakRss = process.memoryUsage().rss;
    const baseRss = peakRss;
    const sample = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 20);

    let started = Date.now();
    await store.put(
      'inputs/bench/big.bin',
      Readable.from(
        (function* () {
          for (let i = 0; i < MB; i++) yield chunk;
        })(),
      ),
    );
    const uploadMs = Date.now() - started;
    started = Date.now();
    const hash = createHash('sha256');
    let bytes = 0;
    for await (const part of (await store.read('inputs/bench/big.bin'))!) {
      hash.update(part as Buffer);
      bytes += (part as Buffer).length;
    }
    const readMs = Date.now() - started;
    clearInterval(sample);
    console.log(
      `multipart upload of ${MB} MiB: ${uploadMs} ms, ${(MB / (uploadMs / 1000)).toFixed(0)} MiB/s`,
    );
    console.log(
      `streamed read of ${mib(bytes)} MiB: ${readMs} ms, ${(MB / (readMs / 1000)).toFixed(0)} MiB/s`,
    );
    console.log(`peak RSS growth during both: ${mib(peakRss - baseRss)} MiB (the file is ${MB} MiB)`);

    const staging = new StagingStore(path.join(dataDir, 'runs'));
    const records = Array.from({ length: 100_000 }, (_, i) => ({
      row: i + 2,
      externalId: `BENCH-${i}`,
      name: `Style ${i}`,
    }));
    started = Date.now();
    const ref = await staging.putNdjson('bench/batch.ndjson', records);
    const putMs = Date.now() - started;
    started = Date.now();
    let count = 0;
    for await (const _ of staging.readNdjson(ref, z.object({ row: z.number() }).loose())) count += 1;
    console.log(
      `staged NDJSON, ${ref.items} records (${mib(ref.bytes)} MiB): put ${putMs} ms, verified read ${Date.now() - started} ms (${count} records)`,
    );

    const journal = new JsonLinesJournal(
      path.join(dataDir, 'runs', 'bench', 'journal', 'batch-00001.ndjson'),
      z.object({ kind: z.string(), n: z.number() }),
    );
    started = Date.now();
    for (let n = 0; n < ENTRIES; n++) await journal.append({ kind: n % 2 === 0 ? 'intent' : 'outcome', n });
    const appendMs = Date.now() - started;
    started = Date.now();
    const entries = await journal.entries();
    const entriesMs = Date.now() - started;
    console.log(
      `journal: ${ENTRIES} appends (one conditional PUT each) in ${appendMs} ms, ${(appendMs / ENTRIES).toFixed(2)} ms per entry`,
    );
    console.log(
      `journal: read back ${entries.length} entries (resume state of a retried attempt) in ${entriesMs} ms`,
    );
  } finally {
    await s3.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

void main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
