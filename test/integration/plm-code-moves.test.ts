/**
 * Issue 15: the PLM import follows the spec's catalogue and material rules and reads real product exports. Every
 * test runs the real workflow on a Temporal dev server against the sandbox over HTTP; the spec sentence each one
 * holds the import to is quoted in its name or beside it.
 * This file: barcodes moved between products of one sheet (swaps, rings, give→take chains) and how a cancelled run
 * finishes them; the other catalogue rules are in plm-spec-rules-catalogue.test.ts. The shared setup is
 * plm-rules-stack.ts.
 */
import type { WorkflowExecutionDescription, WorkflowHandle } from '@temporalio/client';
import { readFileSync } from 'node:fs';
import type { PlmImportResult } from '../../activities/plm-import';
import { plmImport } from '../../workflows';
import { plmImportProgressQuery } from '../../workflows/plm-import';
import { wroteBeforeStop } from '../../cli/stop-words';
import { sandboxApi } from '../harness';
import { expectCancelledRun } from '../harness/errors';
import { family, HEADER, plmRulesStack, toCsv, type Row } from './plm-rules-stack';

describe('PLM import follows the spec rules (issue 15)', () => {
  const { file, run, snapshot, writesSince, api, rejectsOf, stack } = plmRulesStack();
  const { control } = sandboxApi(stack);
  /** The sandbox's fault injection on (a body) or off (null). */
  const faults = (body: object | null) =>
    body ? control('/__sandbox/faults', 'PUT', body) : control('/__sandbox/faults', 'DELETE');

  // Spec 01: code values are unique per type, checked on each write, and "`codes` is replaced wholesale". A barcode
  // one row gives up and another takes is free once the giver's PUT has landed: the taker goes in a later batch. A swap
  // or a ring has no such order: one product of it is first written without the codes it takes (its others kept).
  describe('codes moved between products of the sheet', () => {
    const SIZES = ['S', 'M', 'L'];
    /** The MOV style and colour with a SKU per size given an EAN (a blank cell for none). */
    const sheetOf = (name: string, eans: Record<string, string>) => {
      const rows = family('MOV');
      const skus = SIZES.filter((size) => `MOV-${size}` in eans).map((size) => ({
        ...(rows[2] as Row),
        externalId: `MOV-${size}`,
        name: `MOV ${size}`,
        dimension: size,
        PLM_ID: `MOV-${size}`,
      }));
      const csv = toCsv([...rows.slice(0, 2), ...skus]).split('\r\n');
      const lines = csv.map((line, index) => {
        if (index === 0) return `${line},EAN_GTIN_13`;
        const id = line.split(',')[0] ?? '';
        return line === '' ? line : `${line},${eans[id] ?? ''}`;
      });
      return file(name, lines.join('\r\n'));
    };
    const eanOf = async (externalId: string) =>
      (
        await api<{ codes: Array<{ codeId: string; codeValue: string }> }>(`/styles/${externalId}`)
      ).codes.find((code) => code.codeId === 'EAN_GTIN_13')?.codeValue;
    const eans = async () => ({
      'MOV-S': await eanOf('MOV-S'),
      'MOV-M': await eanOf('MOV-M'),
      'MOV-L': await eanOf('MOV-L'),
    });
    const [A, B, C, D] = ['4006381333931', '4006381333948', '4006381333955', '5012345678900'];
    /** A SKU row of MOV-BLK with its PLM_ID and barcode, and a sheet of such rows (header and trailing newline). */
    const skuRow = (size: string, plmId: string, ean: string) =>
      `MOV-${size},MOV-BLK,sku,MOV ${size},,,,,,${size},180,GRAM,${plmId},,${ean}`;
    const skuSheet = (name: string, rows: string[]) =>
      file(name, [`${HEADER.join(',')},EAN_GTIN_13`, ...rows, ''].join('\r\n'));
    /**
     * Starts an import of `sheet` with every PUT 1.5 s slow and cancels it once `ready` says so (the early write of a
     * swap landed, say); the run ends cancelled.
     */
    const cancelledRun = async (
      sheet: string,
      id: string,
      ready: (handle: WorkflowHandle) => Promise<boolean>,
      batchSize?: number,
    ): Promise<WorkflowHandle> => {
      await faults({ latencyMs: 1500, methods: ['PUT'], pathPrefix: '/styles' });
      const { client, taskQueue, workflowId } = stack();
      const handle = await client.workflow.start(plmImport, {
        args: [{ file: sheet, profile: 'native', ...(batchSize === undefined ? {} : { batchSize }) }],
        taskQueue,
        workflowId: workflowId(id),
      });
      try {
        const deadline = Date.now() + 60_000;
        while (!(await ready(handle))) {
          if (Date.now() > deadline) throw new Error('the early write of the swap never landed');
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        await handle.cancel();
        await expectCancelledRun(handle);
      } finally {
        await faults(null);
      }
      return handle;
    };
    /** The result file of a finished run (result.json: what the operator opens after it). */
    const resultOf = async (described: WorkflowExecutionDescription): Promise<PlmImportResult> => {
      const { resultFile } = (await described.memo) as { resultFile: string };
      return JSON.parse(readFileSync(resultFile, 'utf8')) as PlmImportResult;
    };
    /** A rerun of `sheet` finds nothing left to write: no product updated, no write sent. */
    const rerunWritesNothing = async (sheet: string): Promise<void> => {
      const before = snapshot();
      expect((await run({ file: sheet, profile: 'native' })).products).toMatchObject({ updated: 0 });
      expect(writesSince(before)).toBe(0);
    };
    /** The freed product of a swap has given its barcode up: MOV-S without one. */
    const sFreed = async () => (await eanOf('MOV-S')) === undefined;

    it('a barcode moved from one SKU to another of the sheet is written (the giver first); a swap and a ring of three are written in one run, one product first without the code it takes', async () => {
      await run({
        file: await sheetOf('mov-1.csv', { 'MOV-S': A, 'MOV-M': B, 'MOV-L': C }),
        profile: 'native',
      });
      const moved = await run({
        file: await sheetOf('mov-2.csv', { 'MOV-S': D, 'MOV-M': A }),
        profile: 'native',
      });
      expect(moved.products).toMatchObject({ updated: 2, rejected: 0 });
      expect(await eans()).toEqual({ 'MOV-S': D, 'MOV-M': A, 'MOV-L': C });

      // A swap: S takes M's, M takes S's.
      let before = snapshot();
      const swapped = await run({
        file: await sheetOf('mov-3.csv', { 'MOV-S': A, 'MOV-M': D }),
        profile: 'native',
      });
      expect(rejectsOf(swapped)).toEqual([]);
      expect(swapped.products).toMatchObject({ updated: 2, unchanged: 2, rejected: 0 });
      expect(await eans()).toEqual({ 'MOV-S': A, 'MOV-M': D, 'MOV-L': C });
      // One of the two is written twice: without the code it takes, then with it.
      expect(writesSince(before)).toBe(3);

      // A ring of three: S takes M's, M takes L's, L takes S's.
      before = snapshot();
      const ring = await sheetOf('mov-4.csv', { 'MOV-S': D, 'MOV-M': C, 'MOV-L': A });
      const rotated = await run({ file: ring, profile: 'native' });
      expect(rejectsOf(rotated)).toEqual([]);
      expect(rotated.products).toMatchObject({ updated: 3, rejected: 0 });
      expect(await eans()).toEqual({ 'MOV-S': D, 'MOV-M': C, 'MOV-L': A });
      expect(writesSince(before)).toBe(4);

      // Done: the same sheet again writes nothing.
      before = snapshot();
      const again = await run({ file: ring, profile: 'native' });
      expect(again.products).toMatchObject({ updated: 0, unchanged: 5, rejected: 0 });
      expect(writesSince(before)).toBe(0);
    });

    // The API refuses one product of a swap for another code (held by a product the plan did not read): the other, its
    // barcode given up by its first write, gets it back instead of ending without one.
    it("a swap whose other product the API refuses puts the freed product's barcode back, both rows rejected saying so, the freed one naming the other's row", async () => {
      const [E, F] = ['4006381333962', '4006381333979'];
      await run({
        file: await sheetOf('back-1.csv', { 'MOV-S': E, 'MOV-M': F, 'MOV-L': '' }),
        profile: 'native',
      });
      expect(await eanOf('MOV-S')).toBe(E);
      await run({
        file: await file('back-holder.csv', toCsv(family('OUT', { sku: { PLM_ID: 'OUT-TAKEN' } }))),
        profile: 'native',
      });
      // SKU rows only (three keys with their colour: read by GET, so the holder of OUT-TAKEN is not).
      const sheet = await file(
        'back-2.csv',
        [`${HEADER.join(',')},EAN_GTIN_13`, skuRow('S', 'MOV-S', F), skuRow('M', 'OUT-TAKEN', E), ''].join(
          '\r\n',
        ),
      );
      const before = snapshot();
      const result = await run({ file: sheet, profile: 'native' });
      expect(rejectsOf(result)).toEqual([
        {
          externalId: 'MOV-S',
          code: 'code_giver_rejected',
          message: `row 2: 'MOV-S' takes EAN_GTIN_13 '${F}' from row 3 ('MOV-M'), whose own write was refused (codes_not_unique); fix row 3 first, then import both again; the codes it held before the run were put back (it had given them up for a swap with other rows)`,
        },
        expect.objectContaining({ externalId: 'MOV-M', code: 'codes_not_unique' }),
      ]);
      expect(await eanOf('MOV-S')).toBe(E);
      expect(await eanOf('MOV-M')).toBe(F);
      // MOV-S without E, MOV-M (refused), MOV-S given E back: its full write, bound to be refused, is not sent.
      expect(writesSince(before)).toBe(3);
    });

    // A barcode given up by a row the API refuses (here for its PLM_ID, held by a product the plan did not read) is
    // still that row's product's: the row taking it would only be refused codes_not_unique, an answer that names
    // neither the row to fix nor why. It is not sent; its reject names the giver's row and product instead.
    it("a barcode taken from a row whose own write the API refuses is not sent; the taker's reject names that row, and both keep their barcodes", async () => {
      const [G, H, I] = ['4006381333986', '4006381333993', '4006381334006'];
      await run({
        file: await sheetOf('chain-1.csv', { 'MOV-S': G, 'MOV-M': H, 'MOV-L': '' }),
        profile: 'native',
      });
      await run({
        file: await file('chain-holder.csv', toCsv(family('CHN', { sku: { PLM_ID: 'CHN-TAKEN' } }))),
        profile: 'native',
      });
      // Row 2 gives G up (takes I) but its PLM_ID is taken; row 3 takes G.
      const sheet = await file(
        'chain-2.csv',
        [`${HEADER.join(',')},EAN_GTIN_13`, skuRow('S', 'CHN-TAKEN', I), skuRow('M', 'MOV-M', G), ''].join(
          '\r\n',
        ),
      );
      const sandboxStats = async () =>
        (await (await control('/__sandbox/stats', 'GET')).json()) as { byStatus: Record<string, number> };
      const refusedBefore = (await sandboxStats()).byStatus['400'] ?? 0;
      const before = snapshot();
      const result = await run({ file: sheet, profile: 'native' });
      expect(rejectsOf(result)).toEqual([
        expect.objectContaining({ externalId: 'MOV-S', code: 'codes_not_unique' }),
        {
          externalId: 'MOV-M',
          code: 'code_giver_rejected',
          message:
            "row 3: 'MOV-M' takes EAN_GTIN_13 '4006381333986' from row 2 ('MOV-S'), whose own write was refused (codes_not_unique); fix row 2 first, then import both again: 'MOV-M' was not written and keeps its codes",
        },
      ]);
      expect(result.products).toMatchObject({ updated: 0, rejectedByApi: 2 });
      // One PUT, the giver's: the taker's was bound to be refused.
      expect(writesSince(before)).toBe(1);
      expect(((await sandboxStats()).byStatus['400'] ?? 0) - refusedBefore).toBe(1);
      expect(await eanOf('MOV-S')).toBe(G);
      expect(await eanOf('MOV-M')).toBe(H);
    });

    // A row the plan itself rejects (here: it moves its SKU to another colour, fixed once created) is never written,
    // so it keeps the barcode it gives up: the rows taking it, in a chain or round a swap, would only be refused
    // codes_not_unique, naming no row. The plan rejects them, each naming its own giver's row, and sends nothing.
    it('a barcode taken from a row the plan rejects is not sent: a chain and a swap through it are rejected in the dry run and the real run, each row naming its giver, and nothing is written', async () => {
      const [J, K, L, M] = ['4006381334013', '4006381334020', '4006381334037', '4006381334044'];
      await run({
        file: await sheetOf('plan-giver-1.csv', { 'MOV-S': J, 'MOV-M': K, 'MOV-L': L }),
        profile: 'native',
      });
      expect(await eans()).toEqual({ 'MOV-S': J, 'MOV-M': K, 'MOV-L': L });
      const [style, colour] = family('MOV');
      await run({
        file: await file(
          'plan-giver-white.csv',
          toCsv([
            style as Row,
            { ...(colour as Row), externalId: 'MOV-WHT', color: 'White', PLM_ID: 'MOV-WHT' },
          ]),
        ),
        profile: 'native',
      });
      // `moved`: the row puts its SKU under another colour, which the plan rejects (a product cannot change parent).
      const sku = (size: string, ean: string, moved = false) =>
        `MOV-${size},${moved ? 'MOV-WHT' : 'MOV-BLK'},sku,MOV ${size},,,,,,${size},180,GRAM,MOV-${size},,${ean}`;
      const sheetOfRows = (name: string, rows: string[]) =>
        file(name, [`${HEADER.join(',')},EAN_GTIN_13`, ...rows, ''].join('\r\n'));
      const planJson = (result: PlmImportResult) =>
        (
          JSON.parse(readFileSync(result.planFile, 'utf8')) as {
            products: Array<{ externalId: string; action: string; codes?: string[] }>;
          }
        ).products
          .filter((entry) => entry.externalId.startsWith('MOV-'))
          .map((entry) => `${entry.action} ${entry.externalId} ${(entry.codes ?? []).join(' ')}`.trim());

      // A chain: row 2 (rejected) gives J to row 3, which gives K to row 4.
      const chain = await sheetOfRows('plan-giver-2.csv', [sku('S', M, true), sku('M', J), sku('L', K)]);
      const chainRejects = [
        expect.objectContaining({ externalId: 'MOV-S', code: 'immutable_field_changed' }),
        {
          externalId: 'MOV-M',
          code: 'code_giver_rejected',
          message: `row 3, column 'EAN_GTIN_13': 'MOV-M' takes EAN_GTIN_13 '${J}' from row 2 ('MOV-S'), which the plan rejects (immutable_field_changed); fix row 2 first, then import both again: 'MOV-M' is not written and keeps its codes`,
        },
        {
          externalId: 'MOV-L',
          code: 'code_giver_rejected',
          message: `row 4, column 'EAN_GTIN_13': 'MOV-L' takes EAN_GTIN_13 '${K}' from row 3 ('MOV-M'), which the plan rejects (code_giver_rejected); fix row 3 first, then import both again: 'MOV-L' is not written and keeps its codes`,
        },
      ];
      let before = snapshot();
      const dry = await run({ file: chain, profile: 'native', dryRun: true });
      expect(rejectsOf(dry)).toEqual(chainRejects);
      expect(dry.plan).toMatchObject({ update: 0, invalid: 3 });
      expect(planJson(dry)).toEqual([
        'invalid MOV-S immutable_field_changed',
        'invalid MOV-M code_giver_rejected',
        'invalid MOV-L code_giver_rejected',
      ]);
      const real = await run({ file: chain, profile: 'native' });
      expect(rejectsOf(real)).toEqual(chainRejects);
      expect(real.products).toMatchObject({ updated: 0, rejectedByApi: 0 });
      expect(writesSince(before)).toBe(0);
      expect(await eans()).toEqual({ 'MOV-S': J, 'MOV-M': K, 'MOV-L': L });

      // A swap of rows 2 and 3, either of them rejected: neither is sent, and both keep their barcodes (the one freed
      // first does not give its barcode up for a swap that cannot end).
      const refusedFor = (row: number, taker: string, given: string, giverRow: number, giver: string) => ({
        externalId: taker,
        code: 'code_giver_rejected',
        message: `row ${row}, column 'EAN_GTIN_13': '${taker}' takes EAN_GTIN_13 '${given}' from row ${giverRow} ('${giver}'), which the plan rejects (immutable_field_changed); fix row ${giverRow} first, then import both again: '${taker}' is not written and keeps its codes`,
      });
      const immutable = (externalId: string) =>
        expect.objectContaining({ externalId, code: 'immutable_field_changed' });
      for (const [name, rows, expected] of [
        [
          'plan-giver-swap-1.csv',
          [sku('S', K, true), sku('M', J)],
          [immutable('MOV-S'), refusedFor(3, 'MOV-M', J, 2, 'MOV-S')],
        ],
        [
          'plan-giver-swap-2.csv',
          [sku('S', K), sku('M', J, true)],
          [refusedFor(2, 'MOV-S', K, 3, 'MOV-M'), immutable('MOV-M')],
        ],
      ] as const) {
        before = snapshot();
        const swap = await run({ file: await sheetOfRows(name, [...rows]), profile: 'native' });
        expect(rejectsOf(swap)).toEqual(expected);
        expect(swap.products).toMatchObject({ updated: 0, rejectedByApi: 0 });
        expect(writesSince(before)).toBe(0);
        expect(await eans()).toEqual({ 'MOV-S': J, 'MOV-M': K, 'MOV-L': L });
      }
    });

    // A worker killed between the ring's batches, and PUTs whose answers are lost after they committed (retried): the
    // run resumes from its staged batches and finishes the ring; no product ends without its barcode.
    it('a ring whose run loses answers and whose worker restarts between its batches is finished by the resumed run', async () => {
      await run({
        file: await sheetOf('crash-1.csv', { 'MOV-S': A, 'MOV-M': B, 'MOV-L': C }),
        profile: 'native',
      });
      const ring = await sheetOf('crash-2.csv', { 'MOV-S': B, 'MOV-M': C, 'MOV-L': A });
      await faults({
        latencyMs: 700,
        dropAfterCommitRate: 0.5,
        seed: 7,
        methods: ['PUT'],
        pathPrefix: '/styles',
      });
      try {
        const { client, taskQueue, workflowId } = stack();
        const handle = await client.workflow.start(plmImport, {
          args: [{ file: ring, profile: 'native' }],
          taskQueue,
          workflowId: workflowId('plm-rules-ring-crash'),
        });
        let progress = await handle.query(plmImportProgressQuery);
        while (progress.batchesDone < 1) {
          await new Promise((resolve) => setTimeout(resolve, 50));
          progress = await handle.query(plmImportProgressQuery);
        }
        // Between the first batch (the freed product without the code it takes) and the last (it takes it).
        expect(progress.batchCount).toBe(4);
        expect(progress.batchesDone).toBeLessThan(4);
        await stack().restartWorker();
        const result = await handle.result();
        expect(rejectsOf(result)).toEqual([]);
        expect(result.products).toMatchObject({ updated: 3, rejected: 0 });
        const { counters } = (await (await control('/__sandbox/faults', 'GET')).json()) as {
          counters: { dropped: number };
        };
        expect(counters.dropped).toBeGreaterThan(0);
      } finally {
        await faults(null);
      }
      expect(await eans()).toEqual({ 'MOV-S': B, 'MOV-M': C, 'MOV-L': A });
      await rerunWritesNothing(ring);
    });

    // A cancel (trace-sync cancel, the Web UI) that lands once the freed product has given its barcode up: the run
    // writes the rest of the swap before it closes as cancelled, so no product is left without the code it takes.
    it('a run cancelled between the early write of a swap and its last finishes the swap first, and says so', async () => {
      await run({
        file: await sheetOf('cancel-1.csv', { 'MOV-S': A, 'MOV-M': B, 'MOV-L': C }),
        profile: 'native',
      });
      const swap = await sheetOf('cancel-2.csv', { 'MOV-S': B, 'MOV-M': A, 'MOV-L': C });
      // Cancelled once the early write is seen on the sandbox: MOV-S without a barcode (it gave A up, B is still MOV-M's).
      const handle = await cancelledRun(swap, 'plm-rules-swap-cancel', sFreed);
      expect(await eans()).toEqual({ 'MOV-S': B, 'MOV-M': A, 'MOV-L': C });
      const described = await handle.describe();
      expect(described.status.name).toBe('CANCELLED');
      const metadata = (await handle.query('__temporal_workflow_metadata')) as { currentDetails?: string };
      expect(metadata.currentDetails).toMatch(
        /cancelled: .*the swap of MOV-S and MOV-M was written whole before the run stopped/,
      );
      expect(await described.memo).toMatchObject({
        cancelled: true,
        products: { updated: 2 },
        ringsFinished: [['MOV-S', 'MOV-M']],
      });
      // The file the operator opens after the run names the swap too, with the sheet's rows (header row 1).
      expect(await resultOf(described)).toMatchObject({
        cancelled: true,
        ringsFinished: [
          [
            { externalId: 'MOV-S', rowNumbers: [4] },
            { externalId: 'MOV-M', rowNumbers: [5] },
          ],
        ],
      });
      // Nothing left for a rerun of the swap.
      await rerunWritesNothing(swap);
    });

    // The cancel's finish of a swap meets the API refusing its other product (its PLM_ID is held by a product the plan
    // did not read): the freed product gets its barcode back, and the run must not say the swap was written whole.
    it('a run cancelled inside a swap whose other product the API then refuses puts the barcode back and does not say the swap was written whole', async () => {
      const [E, F] = ['4006381333962', '4006381333979'];
      await run({
        file: await sheetOf('cancel-back-1.csv', { 'MOV-S': E, 'MOV-M': F, 'MOV-L': '' }),
        profile: 'native',
      });
      await run({
        file: await file('cancel-back-holder.csv', toCsv(family('OUT', { sku: { PLM_ID: 'OUT-TAKEN' } }))),
        profile: 'native',
      });
      const sheet = await skuSheet('cancel-back-2.csv', [
        skuRow('S', 'MOV-S', F),
        skuRow('M', 'OUT-TAKEN', E),
      ]);
      const handle = await cancelledRun(sheet, 'plm-rules-swap-cancel-refused', sFreed);
      expect(await eanOf('MOV-S')).toBe(E);
      expect(await eanOf('MOV-M')).toBe(F);
      const described = await handle.describe();
      const metadata = (await handle.query('__temporal_workflow_metadata')) as { currentDetails?: string };
      expect(metadata.currentDetails).toMatch(/cancelled: /);
      expect(metadata.currentDetails).not.toMatch(/written whole/);
      const memo = (await described.memo) as { ringsFinished?: unknown; resultFile: string };
      expect(memo.ringsFinished).toBeUndefined();
      expect(JSON.parse(readFileSync(memo.resultFile, 'utf8'))).not.toHaveProperty('ringsFinished');
    });

    // A swap one of whose products also takes a code from a product outside it, the end of a chain (each of its products
    // takes the next one's barcode), cancelled once the early write of the swap has landed, while the chain is still
    // being written: the chain is written with the rest of the swap, or that product's write meets the code still held.
    it('a run cancelled between the waves of a swap into which a chain of other products gives a code finishes the chain and the swap', async () => {
      const [J, K, L, M, N, O] = [
        '4006381334013',
        '4006381334020',
        '4006381334037',
        '4006381334044',
        '4006381334051',
        '4006381334068',
      ];
      await run({
        file: await sheetOf('rc-1.csv', { 'MOV-S': J, 'MOV-M': K, 'MOV-L': L }),
        profile: 'native',
      });
      await run({
        file: await skuSheet('rc-2.csv', [skuRow('XL', 'MOV-XL', M), skuRow('XXL', 'MOV-XXL', N)]),
        profile: 'native',
      });
      const codesOf = async (externalId: string) =>
        Object.fromEntries(
          (
            await api<{ codes: Array<{ codeId: string; codeValue: string }> }>(`/styles/${externalId}`)
          ).codes.map((code) => [code.codeId, code.codeValue]),
        );
      // S and M swap barcodes; M also takes L's PLM_ID, L takes XL's barcode, XL takes XXL's: XXL and the early write
      // of S (batch 1), XL, L, M, then S in full (batch 5).
      const target = await skuSheet('rc-3.csv', [
        skuRow('S', 'MOV-S', K),
        skuRow('M', 'MOV-L', J),
        skuRow('L', 'MOV-L2', M),
        skuRow('XL', 'MOV-XL', N),
        skuRow('XXL', 'MOV-XXL', O),
      ]);
      // Cancelled while batch 2 (XL) is under way: L, which gives M its PLM_ID, is not begun.
      const handle = await cancelledRun(target, 'plm-rules-chain-ring-cancel', async (running) => {
        const progress = await running.query(plmImportProgressQuery);
        if (progress.batchesDone < 1) return false;
        expect(progress.batchCount).toBe(5);
        expect(progress.batchesDone).toBe(1);
        expect(await eanOf('MOV-S')).toBeUndefined();
        return true;
      });
      expect({
        S: await codesOf('MOV-S'),
        M: await codesOf('MOV-M'),
        L: await codesOf('MOV-L'),
        XL: await codesOf('MOV-XL'),
        XXL: await codesOf('MOV-XXL'),
      }).toEqual({
        S: { PLM_ID: 'MOV-S', EAN_GTIN_13: K },
        M: { PLM_ID: 'MOV-L', EAN_GTIN_13: J },
        L: { PLM_ID: 'MOV-L2', EAN_GTIN_13: M },
        XL: { PLM_ID: 'MOV-XL', EAN_GTIN_13: N },
        XXL: { PLM_ID: 'MOV-XXL', EAN_GTIN_13: O },
      });
      const described = await handle.describe();
      expect(described.status.name).toBe('CANCELLED');
      const result = await resultOf(described);
      expect(result).toMatchObject({
        cancelled: true,
        products: { updated: 5, rejected: 0 },
        rejectsFile: null,
        ringsFinished: [
          [
            { externalId: 'MOV-S', rowNumbers: [2] },
            { externalId: 'MOV-M', rowNumbers: [3] },
          ],
        ],
      });
      await rerunWritesNothing(target);
    });

    // A product outside a swap takes a code the swap's freed product gives up in its early write: a cancel inside the
    // swap writes that taker too, or the code would belong to no product until the sheet is run again.
    it("a run cancelled inside a swap writes the product outside it that takes the freed product's code", async () => {
      await run({
        file: await sheetOf('freed-out-1.csv', { 'MOV-S': A, 'MOV-M': B, 'MOV-L': C }),
        profile: 'native',
      });
      const plmIdOf = async (externalId: string) =>
        (
          await api<{ codes: Array<{ codeId: string; codeValue: string }> }>(`/styles/${externalId}`)
        ).codes.find((code) => code.codeId === 'PLM_ID')?.codeValue;
      // S and M swap barcodes; S (freed: it keeps a new PLM_ID) also gives its PLM_ID to L. A batch a product: S's
      // early write, M, L, then S in full.
      const sheet = await skuSheet('freed-out-2.csv', [
        skuRow('S', 'MOV-S9', B),
        skuRow('M', 'MOV-M', A),
        skuRow('L', 'MOV-S', C),
      ]);
      const handle = await cancelledRun(sheet, 'plm-rules-freed-outside-cancel', sFreed, 1);
      expect({
        S: await plmIdOf('MOV-S'),
        M: await plmIdOf('MOV-M'),
        L: await plmIdOf('MOV-L'),
        eans: await eans(),
      }).toEqual({
        S: 'MOV-S9',
        M: 'MOV-M',
        L: 'MOV-S',
        eans: { 'MOV-S': B, 'MOV-M': A, 'MOV-L': C },
      });
      expect((await handle.describe()).status.name).toBe('CANCELLED');
      const metadata = (await handle.query('__temporal_workflow_metadata')) as { currentDetails?: string };
      expect(metadata.currentDetails).toMatch(
        /the swap of MOV-S and MOV-M and the code move from MOV-S to MOV-L were written whole before the run stopped/,
      );
      await rerunWritesNothing(sheet);
    });

    // A barcode moved from one product to another (no swap): the giver's write and the taker's go in separate batches. A
    // cancel between them would leave the barcode on no product until the sheet is run again, so the run writes the
    // taker before it closes as cancelled, and says so.
    it('a run cancelled between the giver and the taker of a moved barcode writes the taker first, and says so', async () => {
      const E = '4006381334075';
      await run({
        file: await sheetOf('move-cancel-1.csv', { 'MOV-S': A, 'MOV-M': B, 'MOV-L': C }),
        profile: 'native',
      });
      // S gives A up (batch 1), L takes a new barcode of its own (batch 2), M takes A (batch 3): a batch a product.
      const sheet = await skuSheet('move-cancel-2.csv', [
        skuRow('S', 'MOV-S', D),
        skuRow('M', 'MOV-M', A),
        skuRow('L', 'MOV-L', E),
      ]);
      const handle = await cancelledRun(
        sheet,
        'plm-rules-move-cancel',
        async () => (await eanOf('MOV-S')) === D,
        1,
      );
      expect(await eanOf('MOV-S')).toBe(D);
      expect(await eanOf('MOV-M')).toBe(A);
      const described = await handle.describe();
      expect(described.status.name).toBe('CANCELLED');
      const metadata = (await handle.query('__temporal_workflow_metadata')) as { currentDetails?: string };
      expect(metadata.currentDetails).toMatch(
        /cancelled: .*the code move from MOV-S to MOV-M was written whole before the run stopped/,
      );
      const result = await resultOf(described);
      expect(result).toMatchObject({
        cancelled: true,
        rejectsFile: null,
        chainsFinished: [
          [
            { externalId: 'MOV-S', rowNumbers: [2] },
            { externalId: 'MOV-M', rowNumbers: [3] },
          ],
        ],
      });
      expect(result).not.toHaveProperty('ringsFinished');
      // The memo names the move too, so the CLI's stop line (`cancel --wait`, `watch`) says it, as it says a swap.
      const memo = (await described.memo) as Record<string, unknown>;
      expect(memo).toMatchObject({ cancelled: true, chainsFinished: [['MOV-S', 'MOV-M']] });
      expect(wroteBeforeStop(memo)).toMatch(
        /; the code move from MOV-S to MOV-M written whole before the stop$/,
      );
      // The rerun writes what the cancel left (L's barcode, if its batch had not begun), and nothing of the move.
      const rerun = await run({ file: sheet, profile: 'native' });
      expect(rerun.products).toMatchObject({ rejected: 0 });
      expect(await eans()).toEqual({ 'MOV-S': D, 'MOV-M': A, 'MOV-L': E });
    });
    it("a run cancelled before a swap begins writes the swap too when a product taking a written product's code also takes the swap's freed product's code, and says so", async () => {
      const [E, G] = ['4006381334075', '4006381334082'];
      await run({
        file: await sheetOf('freed-chain-1.csv', { 'MOV-S': A, 'MOV-M': B, 'MOV-L': C }),
        profile: 'native',
      });
      const plmIdOf = async (externalId: string) =>
        (
          await api<{ codes: Array<{ codeId: string; codeValue: string }> }>(`/styles/${externalId}`)
        ).codes.find((code) => code.codeId === 'PLM_ID')?.codeValue;
      await run({
        file: await skuSheet('freed-chain-2.csv', [skuRow('XL', 'MOV-XL', G)]),
        profile: 'native',
      });
      // L gives C to XL; XS gets a new barcode; S and M swap barcodes, S (freed: it keeps a new PLM_ID) giving its
      // PLM_ID to XL too. A batch a product: L, XS, S's early write, M, XL, then S in full. The run stops while XS is
      // written: L has given C up, the swap has not begun, and XL cannot take C without S's PLM_ID.
      const sheet = await skuSheet('freed-chain-3.csv', [
        skuRow('L', 'MOV-L', E),
        skuRow('XS', 'MOV-XS', D),
        skuRow('S', 'MOV-S9', B),
        skuRow('M', 'MOV-M', A),
        skuRow('XL', 'MOV-S', C),
      ]);
      const handle = await cancelledRun(
        sheet,
        'plm-rules-freed-chain-cancel',
        async () => (await eanOf('MOV-L')) === E,
        1,
      );
      const described = await handle.describe();
      const result = await resultOf(described);
      expect(rejectsOf(result)).toEqual([]);
      expect(result).toMatchObject({ cancelled: true });
      expect({
        S: await plmIdOf('MOV-S'),
        XL: await plmIdOf('MOV-XL'),
        eans: { ...(await eans()), 'MOV-XL': await eanOf('MOV-XL') },
      }).toEqual({
        S: 'MOV-S9',
        XL: 'MOV-S',
        eans: { 'MOV-S': B, 'MOV-M': A, 'MOV-L': E, 'MOV-XL': C },
      });
      const metadata = (await handle.query('__temporal_workflow_metadata')) as { currentDetails?: string };
      expect(metadata.currentDetails).toMatch(
        /the swap of MOV-S and MOV-M and the code moves between MOV-L, MOV-S and MOV-XL were written whole before the run stopped/,
      );
      // The CLI's stop line (`cancel --wait`, `watch`) names them too.
      expect(wroteBeforeStop((await described.memo) as Record<string, unknown>)).toMatch(
        /; the swap of MOV-S and MOV-M and the code moves between MOV-L, MOV-S and MOV-XL written whole before the stop$/,
      );
      // The rerun writes what the cancel left (XS's barcode, if its write had not landed), and nothing of the moves.
      const rerun = await run({ file: sheet, profile: 'native' });
      expect(rerun.products).toMatchObject({ rejected: 0 });
      expect(rerun.products.updated).toBeLessThanOrEqual(1);
      expect(await eanOf('MOV-XS')).toBe(D);
    });

    it("a run cancelled before a swap begins names the swap as a swap when one of its products takes a written product's code", async () => {
      // XL gives up what the test before left it (MOV-S's PLM_ID, L's barcode).
      await run({
        file: await skuSheet('ring-taker-0.csv', [skuRow('XL', 'MOV-XL', '4006381334099')]),
        profile: 'native',
      });
      await run({
        file: await sheetOf('ring-taker-1.csv', { 'MOV-S': A, 'MOV-M': B, 'MOV-L': C }),
        profile: 'native',
      });
      const plmIdOf = async (externalId: string) =>
        (
          await api<{ codes: Array<{ codeId: string; codeValue: string }> }>(`/styles/${externalId}`)
        ).codes.find((code) => code.codeId === 'PLM_ID')?.codeValue;
      // L gives its PLM_ID to S; S and M swap barcodes, M (freed: it keeps a new PLM_ID) first. A batch a product: L,
      // XS, M's early write, S, then M in full. The run stops while XS is written: L has given its PLM_ID up and the
      // swap has not begun, so the finish writes the swap whole, S taking L's PLM_ID with it.
      const sheet = await skuSheet('ring-taker-2.csv', [
        skuRow('L', 'MOV-L9', C),
        skuRow('XS', 'MOV-XS', D),
        skuRow('M', 'MOV-M9', A),
        skuRow('S', 'MOV-L', B),
      ]);
      const handle = await cancelledRun(
        sheet,
        'plm-rules-ring-taker-cancel',
        async () => (await plmIdOf('MOV-L')) === 'MOV-L9',
        1,
      );
      const described = await handle.describe();
      const result = await resultOf(described);
      expect(rejectsOf(result)).toEqual([]);
      expect({ S: await plmIdOf('MOV-S'), M: await plmIdOf('MOV-M'), eans: await eans() }).toEqual({
        S: 'MOV-L',
        M: 'MOV-M9',
        eans: { 'MOV-S': B, 'MOV-M': A, 'MOV-L': C },
      });
      const metadata = (await handle.query('__temporal_workflow_metadata')) as { currentDetails?: string };
      expect(metadata.currentDetails).toMatch(
        /the swap of MOV-M and MOV-S and the code move from MOV-L to MOV-S were written whole before the run stopped/,
      );
      expect(wroteBeforeStop((await described.memo) as Record<string, unknown>)).toMatch(
        /; the swap of MOV-M and MOV-S and the code move from MOV-L to MOV-S written whole before the stop$/,
      );
    });
  });
});
