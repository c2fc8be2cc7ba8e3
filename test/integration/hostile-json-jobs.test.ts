/**
 * JSON inputs of the order push through the real job (Temporal dev server + sandbox): exports as Windows tools write
 * them (Windows PowerShell 5's `ConvertTo-Json | Out-File` writes UTF-16 with a byte-order mark), and mapping files
 * that are not small regular files.
 */
import { execFileSync } from 'node:child_process';
import { openSync, closeSync, constants, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ORDER_HEADER, orderLine } from '../bad-input/corpus';
import type { TestStack } from '../harness';
import { TraceJob } from '../../worker/search-attributes';
import { plmImport } from '../../workflows';
import { erpOrdersRunner, jobStarters, startJobStack } from './job-stack';

describe('JSON exports in UTF-16 through the order push', () => {
  let stack: TestStack;
  let dir: string;

  beforeAll(async () => {
    ({ dir, stack } = await startJobStack('hostile-json-'));
  }, 60_000);

  afterAll(async () => {
    await stack?.stop();
  });

  const { push } = jobStarters(() => stack, 'json16');
  const order = (orderNumber: string): Record<string, string> =>
    Object.fromEntries(ORDER_HEADER.map((name, index) => [name, orderLine(orderNumber)[index] ?? '']));
  const bom = { utf16le: Buffer.from([0xff, 0xfe]), utf16be: Buffer.from([0xfe, 0xff]) } as const;
  const utf16 = (text: string, order: 'utf16le' | 'utf16be'): Buffer => {
    const bytes = Buffer.from(text, 'utf16le');
    if (order === 'utf16be') bytes.swap16();
    return Buffer.concat([bom[order], bytes]);
  };

  it('a UTF-16 JSON array (little-endian) and NDJSON (big-endian) push their orders', async () => {
    const array = path.join(dir, 'orders-utf16.json');
    const first = `PO-J16-${process.pid}-1`;
    writeFileSync(array, utf16(JSON.stringify([order(first)], null, 2), 'utf16le'));
    expect((await (await push(array)).result()).orders).toMatchObject({ created: 1, rejected: 0 });

    const lines = path.join(dir, 'orders-utf16.ndjson');
    const second = `PO-J16-${process.pid}-2`;
    writeFileSync(lines, utf16(`${JSON.stringify(order(second))}\r\n`, 'utf16be'));
    expect((await (await push(lines)).result()).orders).toMatchObject({ created: 1, rejected: 0 });
  });

  it('a mapping file that is a FIFO or too big fails the run at once, saying why; no worker thread waits on it', async () => {
    const run = erpOrdersRunner(() => stack, 'erp-orders-mapping');
    const file = path.join(dir, 'orders-for-mapping.csv');
    writeFileSync(file, `${ORDER_HEADER.join(',')}\n${orderLine(`PO-MAP-${process.pid}`).join(',')}\n`);
    const fifo = path.join(dir, 'mapping.fifo');
    execFileSync('mkfifo', [fifo]);
    try {
      const started = Date.now();
      await expect(run({ file, mappingFile: fifo })).rejects.toMatchObject({
        cause: { message: expect.stringContaining(`mapping profile ${fifo}: it is not a regular file`) },
      });
      expect(Date.now() - started).toBeLessThan(15_000);
    } finally {
      // Releases a read that did block on the FIFO (before the fix), so the worker can stop.
      try {
        closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
      } catch {
        // ENXIO: no one reads it.
      }
    }
    const big = path.join(dir, 'big-mapping.json');
    writeFileSync(big, `{"columns":{},"note":"${'x'.repeat(2 * 1024 * 1024)}"}`);
    await expect(run({ file, mappingFile: big })).rejects.toMatchObject({
      cause: {
        message: expect.stringContaining(
          'is 2,097,176 bytes, over the limit of 1,048,576 bytes for a mapping file',
        ),
      },
    });
  }, 60_000);

  it('a mapping file with a key given twice, a __proto__ key or 100,000 nested arrays fails at once naming the file, the key and its lines', async () => {
    const runErp = erpOrdersRunner(() => stack, 'erp-orders-mapping-keys');
    const runPlm = (mappingFile: string) =>
      stack.client.workflow.execute(plmImport, {
        args: [{ file: path.join(dir, 'products-for-mapping.csv'), mappingFile }],
        taskQueue: stack.taskQueue,
        workflowId: stack.workflowId('plm-import-mapping-keys'),
        typedSearchAttributes: [{ key: TraceJob, value: 'plm-import' }],
      });
    const file = path.join(dir, 'orders-for-mapping-keys.csv');
    writeFileSync(file, `${ORDER_HEADER.join(',')}\n${orderLine(`PO-KEYS-${process.pid}`).join(',')}\n`);
    writeFileSync(path.join(dir, 'products-for-mapping.csv'), 'externalId,name\nKEYS-1,Tee\n');
    const eu = readFileSync(path.join(__dirname, '../../examples/erp/profile-eu.json'), 'utf8');
    const plm = readFileSync(path.join(__dirname, '../../examples/plm/flat-sku-export.mapping.json'), 'utf8');
    const mapping = (name: string, text: string): string => {
      const target = path.join(dir, name);
      writeFileSync(target, text);
      return target;
    };
    const failure = async (run: Promise<unknown>): Promise<string> => {
      const started = Date.now();
      const error = (await run.then(
        () => undefined,
        (caught: unknown) => caught,
      )) as { cause?: { message?: string } } | undefined;
      expect(Date.now() - started).toBeLessThan(15_000);
      return error?.cause?.message ?? 'the run completed';
    };
    // ERP: "dateFormat": "mdy" on line 2 above the example's own "dateFormat": "dmy" (line 24): the first is ignored.
    const twice = mapping('twice.json', eu.replace('{\n', '{\n  "dateFormat": "mdy",\n'));
    expect(await failure(runErp({ file, mappingFile: twice }))).toBe(
      `cannot read mapping profile ${twice}: the key "dateFormat" appears twice in the top level (lines 2 and 24); ` +
        'JSON keeps only the last, so the first would be ignored without a word: remove one',
    );
    const proto = mapping(
      'proto.json',
      eu.replace(
        '"complete": true',
        '"complete": true,\n  "unitAliases": { "__proto__": "PIECES", "stk": "PIECES" }',
      ),
    );
    expect(await failure(runErp({ file, mappingFile: proto }))).toBe(
      `cannot read mapping profile ${proto}: the key "__proto__" (in unitAliases, line 26) names JavaScript's object ` +
        'prototype, not a setting; remove it',
    );
    const deep = mapping(
      'deep.json',
      eu.replace('"complete": true', `"complete": ${'['.repeat(100_000)}${']'.repeat(100_000)}`),
    );
    const deepShown = await failure(runErp({ file, mappingFile: deep }));
    expect(deepShown).toMatch(
      /^cannot read mapping profile .*: it is nested more than 64 levels deep \(line 25, in complete\[0\]/,
    );
    expect(deepShown.length).toBeLessThan(500);

    // PLM: a column given twice inside "style".
    const plmTwice = mapping(
      'plm-twice.json',
      plm.replace('"fields": {', '"fields": {\n      "name": "Style Title",'),
    );
    expect(await failure(runPlm(plmTwice))).toMatch(
      new RegExp(
        `^mapping file ${plmTwice}: the key "name" appears twice in style\\.fields \\(lines \\d+ and \\d+\\)`,
      ),
    );
  }, 90_000);
});
