/**
 * Values at the spec's limits and hostile text through the real jobs (Temporal dev server + sandbox): a 255-character
 * externalId imports and is ordered, a 256-character one rejects its row only; formula text in a rejects file is
 * neutralised and comes back as it was when the fixed file is retried. Broken files are in bad-input-jobs.test.ts.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { plmImport, erpOrders } from '../../workflows';
import { ORDER_HEADER, orderLine } from '../bad-input/corpus';
import type { TestStack } from '../harness';
import { toCsv, type NativeRow } from '../unit/plm-activities/native-sheet';
import { jobStarters, startJobStack } from './job-stack';

describe('hostile values through the jobs: the longest externalIds, formula text in rejects files', () => {
  let stack: TestStack;
  let dir: string;

  beforeAll(async () => {
    ({ dir, stack } = await startJobStack('hostile-values-jobs-'));
  }, 60_000);

  afterAll(async () => {
    await stack?.stop();
  });

  const { push, importSheet } = jobStarters(() => stack, 'bad');

  /** Issue 17, item 4: spec 01 allows 255 characters for externalId and accepts it in paths. */
  it('255-character externalIds import and are ordered; a 256-character one rejects its row only', async () => {
    const long = (tag: string, length: number) => `BADIN-${tag}-${process.pid}-`.padEnd(length, 'x');
    const style = long('LONG', 255);
    const variant = long('LONGV', 255);
    const tooLong = long('TOOLONG', 256);
    const rows: NativeRow[] = [
      {
        externalId: style,
        level: 'style',
        name: 'Long id tee',
        styleType: 'T-shirts',
        isComponent: 'no',
        PLM_ID: `L-${process.pid}-1`,
      },
      {
        externalId: variant,
        parentExternalId: style,
        level: 'variant',
        name: 'Long id tee black',
        color: 'Black',
        PLM_ID: `L-${process.pid}-2`,
      },
      {
        externalId: tooLong,
        level: 'style',
        name: 'Too long id',
        styleType: 'T-shirts',
        isComponent: 'no',
        PLM_ID: `L-${process.pid}-3`,
      },
    ];
    const file = path.join(dir, 'long-ids.csv');
    writeFileSync(file, toCsv(rows));
    const result = await (await importSheet(file)).result();
    expect(result.products).toMatchObject({ created: 2, rejected: 1 });
    // Run again: each product is read back by its 255-character id in the path, and nothing is written.
    const again = await (await importSheet(file)).result();
    expect(again.products).toMatchObject({ created: 0, updated: 0, rejected: 1 });

    const orders = path.join(dir, 'long-id-orders.csv');
    const order = orderLine(`PO-BADIN-LONG-${process.pid}`);
    order[5] = variant;
    writeFileSync(orders, `${ORDER_HEADER.join(',')}\n${order.join(',')}\n`);
    const pushed = await (await push(orders)).result();
    expect(pushed.orders).toMatchObject({ created: 1, rejected: 0 });
  });

  /**
   * Issue 17: rejects cells starting with `=`, `+`, `-`, `@`, tab or CR are neutralised (an apostrophe in front), and
   * `retry` of the fixed file reads the original value again.
   */
  it('rejects files neutralise formula text, and a fixed rejects file gives the original values back', async () => {
    const prefix = `BADIN-RT-${process.pid}`;
    const description = '=HYPERLINK("http://evil.example","click")';
    const name = '-Tee minus';
    const rows: NativeRow[] = [
      {
        externalId: `${prefix}-S1`,
        level: 'style',
        name,
        styleType: 'T-shirt',
        isComponent: 'no',
        description,
        PLM_ID: `${prefix}-S1`,
      },
    ];
    const file = path.join(dir, 'round-trip.csv');
    writeFileSync(file, toCsv(rows));
    const first = await importSheet(file);
    const result = await first.result();
    expect(result.products).toMatchObject({ rejected: 1 });
    const rejects = readFileSync(result.rejectsFile as string, 'utf8');
    expect(rejects).toContain(`"'=HYPERLINK(""http://evil.example"",""click"")"`);
    expect(rejects).toContain(`'-Tee minus`);
    writeFileSync(result.rejectsFile as string, rejects.replace(',T-shirt,', ',T-shirts,'));
    const retried = await stack.client.workflow.start(plmImport, {
      taskQueue: stack.taskQueue,
      workflowId: stack.workflowId('plm-import-retry'),
      args: [{ file: result.rejectsFile as string, profile: 'native', retryOf: first.workflowId }],
    });
    expect((await retried.result()).products).toMatchObject({ created: 1, rejected: 0 });
    const response = await fetch(`${stack.sandbox.baseUrl}/styles/${prefix}-S1`, {
      headers: { companyapikey: stack.apiKey },
    });
    const product = z
      .object({ data: z.looseObject({ name: z.string(), description: z.string() }) })
      .parse(await response.json());
    expect(product.data).toMatchObject({ name, description });

    // The order push: an order number starting with '+' comes back from its fixed rejects file as it was.
    const orderNumber = `+46-BADIN-${process.pid}`;
    const line = orderLine(orderNumber);
    line[1] = 'SUP-9999';
    const orders = path.join(dir, 'round-trip-orders.csv');
    writeFileSync(orders, `${ORDER_HEADER.join(',')}\n${line.join(',')}\n`);
    const pushed = await push(orders);
    const pushedResult = await pushed.result();
    expect(pushedResult.orders).toMatchObject({ rejected: 1 });
    const orderRejects = readFileSync(pushedResult.rejectsFile as string, 'utf8');
    expect(orderRejects).toContain(`'${orderNumber}`);
    writeFileSync(pushedResult.rejectsFile as string, orderRejects.replace('SUP-9999', 'SUP-1001'));
    const repushed = await stack.client.workflow.start(erpOrders, {
      taskQueue: stack.taskQueue,
      workflowId: stack.workflowId('erp-orders-retry'),
      args: [{ file: pushedResult.rejectsFile as string, retryOf: pushed.workflowId }],
    });
    expect((await repushed.result()).orders).toMatchObject({ created: 1, rejected: 0 });
    const listed = await fetch(`${stack.sandbox.baseUrl}/orders?limit=100`, {
      headers: { companyapikey: stack.apiKey },
    });
    const numbers = z
      .object({ data: z.array(z.looseObject({ orderNumber: z.string() })) })
      .parse(await listed.json());
    expect(numbers.data.map((o) => o.orderNumber)).toContain(orderNumber);
  });

  /**
   * Spec 03: a quantity is positive, below 1e17, stored with 2 decimals. Odd numbers in csv and JSON cells are read
   * exactly as that allows or refused naming row, column and reason, never sent as Infinity, 0 or rounded silently,
   * and never quoted whole (a 10,000-digit number).
   */
  it('odd quantities in csv and JSON cells are read exactly or refused with row, column and a bounded reason', async () => {
    const digits = '9'.repeat(10_000);
    const prefix = `PO-NUM-${process.pid}`;
    const csvCases: Array<[string, string, RegExp | number]> = [
      [
        '1e400',
        '1e400',
        /^row 2, column 'quantity' \(quantity\): '1e400' is not a number with decimal separator '\.'/,
      ],
      [
        'big',
        '99999999999999999999',
        /^row 3, column 'quantity' \(quantity\): '99999999999999999999' is too large: quantities must be below 1e17/,
      ],
      ['inf', 'Infinity', /^row 4, column 'quantity' \(quantity\): 'Infinity' is not a number/],
      ['nan', 'NaN', /^row 5, column 'quantity' \(quantity\): 'NaN' is not a number/],
      ['m0', '-0', /^row 6, column 'quantity' \(quantity\): '-0' is not a positive quantity/],
      [
        'comma',
        '"1,5"',
        /^row 7, column 'quantity' \(quantity\): '1,5' is not a number with decimal separator '\.'/,
      ],
      ['hex', '0x10', /^row 8, column 'quantity' \(quantity\): '0x10' is not a number/],
      ['tiny', '1e-400', /^row 9, column 'quantity' \(quantity\): '1e-400' is not a number/],
      [
        'digits',
        digits,
        /^row 10, column 'quantity' \(quantity\): '9{200}… \(10,000 characters\)' is too large: quantities must be below 1e17$/,
      ],
      ['ok', '12.5', 12.5],
    ];
    const line = (tag: string, quantity: string): string[] => {
      const cells = orderLine(`${prefix}-${tag}`);
      cells[6] = quantity;
      return cells;
    };
    const csv = path.join(dir, 'odd-quantities.csv');
    writeFileSync(
      csv,
      [ORDER_HEADER.join(','), ...csvCases.map(([tag, q]) => line(tag, q).join(','))].join('\n') + '\n',
    );
    const jsonCases: Array<[string, string, RegExp | number]> = [
      [
        'j1e400',
        '1e400',
        /^row 1, column 'quantity' \(quantity\): the JSON number 1e400 is too large: quantities must be below 1e17$/,
      ],
      [
        'jbig',
        '99999999999999999999',
        /^row 2, column 'quantity' \(quantity\): the JSON number 99999999999999999999 is too large: quantities must be below 1e17$/,
      ],
      ['jinf', '"Infinity"', /^row 3, column 'quantity' \(quantity\): 'Infinity' is not a number/],
      ['jm0', '-0', /^row 4, column 'quantity' \(quantity\): the JSON number -0 is not a positive quantity$/],
      [
        'jtiny',
        '1e-400',
        /^row 5, column 'quantity' \(quantity\): the JSON number 1e-400 is not a positive quantity once rounded to 2 decimals$/,
      ],
      [
        'jdigits',
        digits,
        /^row 6, column 'quantity' \(quantity\): the JSON number 9{60}… \(10,000 characters\) is too large: quantities must be below 1e17$/,
      ],
      [
        'jneg',
        '-1e400',
        /^row 7, column 'quantity' \(quantity\): the JSON number -1e400 is not a positive quantity$/,
      ],
      ['j1e3', '1e3', 1000],
    ];
    const json = path.join(dir, 'odd-quantities.json');
    writeFileSync(
      json,
      `[${jsonCases
        .map(
          ([tag, q]) =>
            `{${ORDER_HEADER.map((name, i) => `${JSON.stringify(name)}:${i === 6 ? q : JSON.stringify(line(tag, '1')[i])}`).join(',')}}`,
        )
        .join(',\n')}]`,
    );
    const orders = async () => {
      const listed = await fetch(`${stack.sandbox.baseUrl}/orders?limit=100`, {
        headers: { companyapikey: stack.apiKey },
      });
      return z
        .object({
          data: z.array(
            z.looseObject({
              id: z.string(),
              orderNumber: z.string(),
            }),
          ),
        })
        .parse(await listed.json()).data;
    };
    for (const [file, cases] of [
      [csv, csvCases],
      [json, jsonCases],
    ] as const) {
      const result = await (await push(file)).result();
      const refused = cases.filter(([, , expected]) => expected instanceof RegExp);
      expect(result.orders).toMatchObject({
        created: cases.length - refused.length,
        rejected: refused.length,
      });
      expect(JSON.stringify(result).length).toBeLessThan(20_000);
      for (const [tag, , expected] of refused) {
        const rejection = result.rejections.find((r) => r.orderNumber === `${prefix}-${tag}`);
        expect(rejection?.message).toMatch(expected as RegExp);
        expect(rejection?.code).toBe('invalid_quantity');
      }
    }
    const written = await orders();
    for (const [tag, , expected] of [...csvCases, ...jsonCases].filter(([, , e]) => typeof e === 'number')) {
      const order = written.find((o) => o.orderNumber === `${prefix}-${tag}`);
      const detail = await fetch(`${stack.sandbox.baseUrl}/orders/${order?.id ?? 'missing'}`, {
        headers: { companyapikey: stack.apiKey },
      });
      const lines = z
        .object({ data: z.looseObject({ lines: z.array(z.looseObject({ quantity: z.number() })) }) })
        .parse(await detail.json()).data.lines;
      expect(lines.map((l) => l.quantity)).toEqual([expected]);
    }
  }, 120_000);
});
