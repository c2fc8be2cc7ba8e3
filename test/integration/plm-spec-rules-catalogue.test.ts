/**
 * Issue 15: the PLM import follows the spec's catalogue and material rules and reads real product exports. Every
 * test runs the real workflow on a Temporal dev server against the sandbox over HTTP; the spec sentence each one
 * holds the import to is quoted in its name or beside it.
 * This file: catalogue rules (spec 01); barcodes moved between products of a sheet are in plm-code-moves.test.ts.
 * The shared setup is plm-rules-stack.ts.
 */
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import * as XLSX from 'xlsx';
import { buildDemoSeed } from '../../sandbox/seed/demo';
import { BRAND_COMPANY_ID, SUPPLIER_COMPANY_ID } from '../../sandbox/seed/demo-network';
import { plmImport } from '../../workflows';
import { sandboxApi, type TestStack } from '../harness';
import { parseCsv } from '../unit/plm-activities/native-sheet';
import { family, plmRulesStack, toCsv, type ApiProduct, type Row } from './plm-rules-stack';
import { startJobStack } from './job-stack';

describe('PLM import follows the spec rules (issue 15)', () => {
  const { file, run, snapshot, writesSince, api, product, rejectsOf } = plmRulesStack();

  describe('1. archived products', () => {
    // Spec 01: "Archived products are excluded from default lists." and externalId is "unique per company across all
    // three levels" (archived ones included): a row of an archived product is not a create.
    it('"Archived products are excluded from default lists": a row whose product is archived is reported as archived and rejected with a reason, and nothing is written', async () => {
      const rows = family('ARC1');
      const created = await run({ file: await file('arc1.csv', toCsv(rows)), profile: 'native' });
      expect(created.products).toMatchObject({ created: 3 });
      const style = await product('ARC1');
      await api('/styles/archive', { method: 'POST', body: JSON.stringify({ ids: [style.id] }) });

      const changed = rows.map((row) =>
        row.externalId === 'ARC1' ? { ...row, description: 'Back for SS27' } : row,
      );
      const sheet = await file('arc1-changed.csv', toCsv(changed));
      const before = snapshot();
      const result = await run({ file: sheet, profile: 'native' });
      expect(writesSince(before)).toBe(0);
      expect(result.products).toMatchObject({ archived: 3, created: 0, updated: 0 });
      expect(result.plan).toMatchObject({ archived: 3, create: 0 });
      expect(rejectsOf(result).map((reject) => `${reject.externalId} ${reject.code}`)).toEqual([
        'ARC1 archived_product',
        'ARC1-BLK archived_product',
        'ARC1-BLK-M archived_product',
      ]);
      expect(rejectsOf(result)[0]?.message).toMatch(/'ARC1' is archived .*--unarchive/);
      expect(await product('ARC1')).toMatchObject({ isArchived: true, description: 'Soft organic tee' });

      // The explicit option unarchives, then updates.
      const unarchived = await run({ file: sheet, profile: 'native', unarchive: true });
      expect(unarchived.products).toMatchObject({ archived: 0, unarchived: 3, updated: 3, rejected: 0 });
      expect(await product('ARC1')).toMatchObject({ isArchived: false, description: 'Back for SS27' });
      expect(await product('ARC1-BLK-M')).toMatchObject({ isArchived: false });
      const again = snapshot();
      expect((await run({ file: sheet, profile: 'native' })).products).toMatchObject({
        unchanged: 3,
        archived: 0,
      });
      expect(writesSince(again)).toBe(0);
    });

    // Spec 01: archiving "Always cascades to all variants and SKUs of an archived style (and SKUs of an archived
    // variant)"; unarchiving with "shouldUnarchiveChildren false" leaves "Children stay archived". A new product under
    // an archived parent or grandparent that the sheet does not name would be created live in an archived family.
    it('"Always cascades to all variants and SKUs": a new SKU whose parent and grandparent are archived (neither on the sheet) is rejected archived_product naming them; with unarchive they are unarchived (children left archived) and the SKU created', async () => {
      const rows = family('ARP');
      await run({ file: await file('arp.csv', toCsv(rows)), profile: 'native' });
      const style = await product('ARP');
      await api('/styles/archive', { method: 'POST', body: JSON.stringify({ ids: [style.id] }) });
      const sizes: Row[] = ['L', 'XL'].map((size) => ({
        externalId: `ARP-BLK-${size}`,
        parentExternalId: 'ARP-BLK',
        level: 'sku',
        name: `ARP black ${size}`,
        dimension: size,
        PLM_ID: `ARP-BLK-${size}`,
      }));
      const sheet = await file('arp-sizes.csv', toCsv(sizes));
      const before = snapshot();
      const result = await run({ file: sheet, profile: 'native' });
      expect(writesSince(before)).toBe(0);
      expect(result.products).toMatchObject({ created: 0, rejected: 2 });
      expect(rejectsOf(result).map((reject) => `${reject.externalId} ${reject.code}`)).toEqual([
        'ARP-BLK-L archived_product',
        'ARP-BLK-XL archived_product',
      ]);
      expect(rejectsOf(result)[0]?.message).toMatch(/'ARP-BLK'.*'ARP'.*archived.*--unarchive/);
      expect(await api('/styles/ARP-BLK-L')).toBeUndefined(); // 404: not created

      const unarchived = await run({ file: sheet, profile: 'native', unarchive: true });
      expect(unarchived.products).toMatchObject({ created: 2, unarchived: 2, rejected: 0 });
      for (const externalId of ['ARP', 'ARP-BLK', 'ARP-BLK-L', 'ARP-BLK-XL'])
        expect(await product(externalId)).toMatchObject({ isArchived: false });
      expect(await product('ARP-BLK-M')).toMatchObject({ isArchived: true }); // "Children stay archived"
    });

    // Spec 01: archiving "Always cascades to all variants and SKUs"; "shouldUnarchiveChildren false": "Children stay
    // archived". Unarchiving a SKU alone would leave it live under an archived variant and style.
    it('"Always cascades to all variants and SKUs": with unarchive, an archived SKU the sheet names (its variant and style not on it) is unarchived with its archived parent and grandparent; their other children stay archived', async () => {
      const rows = [
        ...family('ARK'),
        {
          externalId: 'ARK-BLK-L',
          parentExternalId: 'ARK-BLK',
          level: 'sku',
          name: 'ARK black L',
          dimension: 'L',
          PLM_ID: 'ARK-BLK-L',
        },
      ];
      await run({ file: await file('ark.csv', toCsv(rows)), profile: 'native' });
      const style = await product('ARK');
      await api('/styles/archive', { method: 'POST', body: JSON.stringify({ ids: [style.id] }) });
      const sku = rows
        .filter((row) => row.externalId === 'ARK-BLK-M')
        .map((row) => ({ ...row, name: 'ARK black M v2' }));

      const unarchived = await run({
        file: await file('ark-sku.csv', toCsv(sku)),
        profile: 'native',
        unarchive: true,
      });
      expect(unarchived.products).toMatchObject({ updated: 3, unarchived: 3, rejected: 0 });
      for (const externalId of ['ARK', 'ARK-BLK', 'ARK-BLK-M'])
        expect(await product(externalId)).toMatchObject({ isArchived: false });
      expect(await product('ARK-BLK-M')).toMatchObject({ name: 'ARK black M v2' });
      expect(await product('ARK-BLK-L')).toMatchObject({ isArchived: true }); // "Children stay archived"
    });

    // The unarchive goes first (spec 01: POST /styles/unarchive), then the PUT: a PUT the API refuses leaves the
    // product live all the same, and the result must count it among the unarchived.
    it('with unarchive, an archived SKU whose update the API refuses is still counted unarchived (it is), and its reject says so', async () => {
      await run({ file: await file('arq.csv', toCsv(family('ARQ'))), profile: 'native' });
      // Another product, not on the next sheet (so not read), holds the PLM_ID the sheet gives the SKU.
      await run({
        file: await file(
          'arq-holder.csv',
          toCsv([{ ...family('ARQH')[0], externalId: 'ARQH', PLM_ID: 'ARQ-TAKEN' }]),
        ),
        profile: 'native',
      });
      const style = await product('ARQ');
      await api('/styles/archive', { method: 'POST', body: JSON.stringify({ ids: [style.id] }) });
      const sku = family('ARQ')
        .filter((row) => row.level === 'sku')
        .map((row) => ({ ...row, PLM_ID: 'ARQ-TAKEN' }));

      const result = await run({
        file: await file('arq-sku.csv', toCsv(sku)),
        profile: 'native',
        unarchive: true,
      });
      expect(result.products).toMatchObject({ rejectedByApi: 1, unarchived: 3 });
      expect(await product('ARQ-BLK-M')).toMatchObject({ isArchived: false });
      expect(rejectsOf(result)).toEqual([
        expect.objectContaining({
          externalId: 'ARQ-BLK-M',
          code: 'codes_not_unique',
          message: expect.stringMatching(
            /unarchived by this run, it stays live; its fields were not updated/,
          ),
        }),
      ]);
    });
  });

  // Spec 01: "a code value already used by another product gives 400 `codes_not_unique`". A holder the plan did not read
  // (not on the sheet) is met only when the write is refused, after the run created the new style and colour the
  // refused product was to go under: they stay, and its reject says so (the plan says the same of its own rejects).
  it('a product the API refuses names the new parents this run created for it, which stay without it', async () => {
    await run({
      file: await file(
        'npr-holders.csv',
        toCsv([
          { ...(family('NPRH')[0] as Row), PLM_ID: 'NPR-TAKEN' },
          { ...(family('NPVH')[0] as Row), PLM_ID: 'NPV-TAKEN' },
        ]),
      ),
      profile: 'native',
    });
    // Three products a sheet: the plan reads each by GET (catalogue-read.ts), so not the holders.
    const sku = await run({
      file: await file('npr.csv', toCsv(family('NPR', { sku: { PLM_ID: 'NPR-TAKEN' } }))),
      profile: 'native',
    });
    expect(sku.products).toMatchObject({ created: 2, rejectedByApi: 1 });
    expect(await product('NPR-BLK')).toMatchObject({ isArchived: false });
    const skuRefused =
      /^row 4: the API refused 'NPR-BLK-M' .*; its new parents 'NPR-BLK' and 'NPR' were created by this run and stay, without 'NPR-BLK-M'$/;
    expect(rejectsOf(sku)).toEqual([
      { externalId: 'NPR-BLK-M', code: 'codes_not_unique', message: expect.stringMatching(skuRefused) },
    ]);
    expect(sku.rejections).toEqual([expect.objectContaining({ message: expect.stringMatching(skuRefused) })]);

    const variant = await run({
      file: await file('npv.csv', toCsv(family('NPV', { variant: { PLM_ID: 'NPV-TAKEN' } }))),
      profile: 'native',
    });
    expect(variant.products).toMatchObject({ created: 1, rejectedByApi: 2 });
    expect(rejectsOf(variant)).toEqual([
      {
        externalId: 'NPV-BLK',
        code: 'codes_not_unique',
        message: expect.stringMatching(
          /; its new parent 'NPV' was created by this run and stays, without 'NPV-BLK'$/,
        ),
      },
      expect.objectContaining({ externalId: 'NPV-BLK-M', code: 'invalid_parent' }),
    ]);
  });

  describe('2. inherited values', () => {
    // Spec 01, Inheritance: "For variants and SKUs, these fields take the parent's value whenever the child's own value
    // is null [...] Inheritance is resolved at read time". The comparison is with the child's own value.
    it("\"these fields take the parent's value whenever the child's own value is null\": a child value equal to its parent's is written as the child's own", async () => {
      await run({ file: await file('inh.csv', toCsv(family('INH'))), profile: 'native' });
      expect((await product('INH-BLK')).overriddenFlag ?? []).not.toContain('description');
      expect(await product('INH-BLK')).toMatchObject({ description: 'Soft organic tee' }); // resolved from the style

      const own = family('INH', { variant: { description: 'Soft organic tee' } });
      const before = snapshot();
      const result = await run({ file: await file('inh-own.csv', toCsv(own)), profile: 'native' });
      expect(result.products).toMatchObject({ updated: 1, unchanged: 2 });
      expect(writesSince(before)).toBe(1);
      expect((await product('INH-BLK')).overriddenFlag).toContain('description');

      // The other direction: the child now holds its own value, the style changes; only the style is written, the
      // variant keeps its own value and the SKU (blank on the sheet) keeps inheriting.
      const styleChanged = family('INH', {
        style: { description: 'Heavier organic tee' },
        variant: { description: 'Soft organic tee' },
      });
      const second = snapshot();
      const changed = await run({
        file: await file('inh-style.csv', toCsv(styleChanged)),
        profile: 'native',
      });
      expect(changed.products).toMatchObject({ updated: 1, unchanged: 2 });
      expect(writesSince(second)).toBe(1);
      expect(await product('INH-BLK')).toMatchObject({ description: 'Soft organic tee' });
      expect(await product('INH-BLK-M')).toMatchObject({ description: 'Soft organic tee' }); // from its parent, the variant
      expect((await product('INH-BLK-M')).overriddenFlag ?? []).not.toContain('description');

      const third = snapshot();
      expect(
        (await run({ file: await file('inh-style-again.csv', toCsv(styleChanged)), profile: 'native' }))
          .products,
      ).toMatchObject({ unchanged: 3 });
      expect(writesSince(third)).toBe(0);
    });
  });

  describe("10. the key's own catalogue", () => {
    // Spec 01, POST /styles: `forCompanyId` "create on behalf of another company in the network"; Product:
    // "`forCompanyId` | Owning company"; externalId rules: "unique per company across all three levels; [...] resolved
    // only within the catalogue of the account whose key is used". Codes: "unique per code type within the caller's
    // catalogue". A product the key created for a partner is the partner's: its externalId and codes are not the
    // brand's, whether the import reads the catalogue by lists (4+ keys) or by GET (fewer).
    it('"resolved only within the catalogue of the account whose key is used": a product created for a partner is neither updated nor a code clash, on the list path and the GET path alike', async () => {
      const outcome = async (prefix: string, count: number) => {
        const partner = await api<{ id: string }>('/styles', {
          method: 'POST',
          body: JSON.stringify({
            externalId: `${prefix}-1`,
            forCompanyId: SUPPLIER_COMPANY_ID,
            name: 'Supplier tee',
            styleTypeId: 'st_tshirts',
            isComponent: false,
            codes: [{ codeId: 'PLM_ID', codeValue: `${prefix}-SUP` }],
          }),
        });
        const rows: Row[] = Array.from({ length: count }, (_, index) => ({
          externalId: `${prefix}-${index + 1}`,
          level: 'style',
          name: `Brand tee ${index + 1}`,
          styleType: 'T-shirts',
          isComponent: 'no',
          // The second row reuses the partner product's code value; the first shares its externalId.
          PLM_ID: index === 1 ? `${prefix}-SUP` : `${prefix}-BR-${index + 1}`,
        }));
        const result = await run({ file: await file(`${prefix}.csv`, toCsv(rows)), profile: 'native' });
        // Undefined when the brand's key finds no such product (the API answered 404).
        const own = await api<(ApiProduct & { forCompanyId: string }) | undefined>(`/styles/${prefix}-1`);
        const theirs = await api<ApiProduct & { forCompanyId: string }>(`/styles/${partner.id}`);
        return {
          strategy: result.catalogueRead.strategy,
          products: result.products,
          rejects: rejectsOf(result).map(
            (reject) => `${reject.externalId} ${reject.code}: ${reject.message}`,
          ),
          own: own && {
            id: own.id === partner.id ? 'the partner product' : 'a new product',
            owner: own.forCompanyId,
          },
          partner: { owner: theirs.forCompanyId, name: theirs.name },
        };
      };
      const listed = await outcome('OWNL', 4);
      const got = await outcome('OWNG', 2);
      expect(listed.strategy).not.toBe('gets');
      expect(got.strategy).toBe('gets');
      for (const [seen, count] of [
        [listed, 4],
        [got, 2],
      ] as const) {
        expect(seen.rejects).toEqual([]);
        expect(seen.products).toMatchObject({ created: count, updated: 0, rejected: 0 });
        expect(seen.own).toEqual({ id: 'a new product', owner: BRAND_COMPANY_ID });
        expect(seen.partner).toEqual({ owner: SUPPLIER_COMPANY_ID, name: 'Supplier tee' });
      }
    });
  });

  describe('10b. a key in another case than a catalogue product', () => {
    // Spec 01: externalId is "unique per company across all three levels" and the API compares keys as given (the spec
    // names no case folding; the sandbox keeps them case-sensitive), so 'Case1' beside the catalogue's 'CASE1' would
    // be a second style a buyer cannot tell from the first: a re-cased PLM export, not a new product.
    it('a row whose key differs only in case from a catalogue product of its level is refused naming that product, its child with it; the rest imports, and the retry of the fixed rows updates that product', async () => {
      await run({ file: await file('case1.csv', toCsv(family('CASE1'))), profile: 'native' });
      const existing = await product('CASE1');
      const rows: Row[] = [
        ...family('Case1', { style: { PLM_ID: 'CASE1-PLM', description: 'Re-cased' } }).slice(0, 1),
        {
          externalId: 'CASE1-RED',
          parentExternalId: 'Case1',
          level: 'variant',
          name: 'CASE1 red',
          color: 'Red',
          PLM_ID: 'CASE1-RED',
        },
        // Another level in another case is another product (a Shopify handle beside its SKU's key).
        ...family('case1-blk', { style: { PLM_ID: 'case1-blk-style' } }).slice(0, 1),
        ...family('CASE2'),
      ];
      const before = snapshot();
      const first = await run({ file: await file('case1-recased.csv', toCsv(rows)), profile: 'native' });
      expect(first.catalogueRead.strategy).not.toBe('gets');
      expect(rejectsOf(first).map((reject) => `${reject.externalId} ${reject.code}`)).toEqual([
        'Case1 duplicate_external_id',
        'CASE1-RED invalid_parent',
      ]);
      expect(rejectsOf(first)[0]?.message).toBe(
        `row 2, column 'externalId': style key 'Case1' differs only in case from the catalogue's style 'CASE1' (id ${existing.id}); the API tells keys apart by case, so this would create another style: write it as 'CASE1'`,
      );
      expect(first.products).toMatchObject({ created: 4, rejected: 2 });
      expect(writesSince(before)).toBeGreaterThan(0);
      expect(await api<unknown>('/styles/Case1')).toBeUndefined();
      expect(await api<unknown>('/styles/CASE1-RED')).toBeUndefined();
      expect(await product('CASE1')).toMatchObject({ id: existing.id, description: 'Soft organic tee' });
      expect(await product('case1-blk')).toMatchObject({ name: 'case1-blk tee' });

      // The user writes the key as the catalogue has it in the rejects file and retries it.
      const fixed = readFileSync(first.rejectsFile as string, 'utf8').replace(/\bCase1\b/g, 'CASE1');
      await writeFile(first.rejectsFile as string, fixed);
      const retry = await run({
        file: first.rejectsFile as string,
        profile: 'native',
        retryOf: first.workflowId,
      });
      expect(retry).toMatchObject({ rejectsFile: null, products: { created: 1, updated: 1, rejected: 0 } });
      expect(await product('CASE1')).toMatchObject({ id: existing.id, description: 'Re-cased' });
      expect(await product('CASE1-RED')).toMatchObject({ name: 'CASE1 red' });
    });
    it("a parent named only by its key in another case than the catalogue's is missing_parent naming the catalogue's spelling and id", async () => {
      await run({ file: await file('twin4.csv', toCsv(family('TWIN4'))), profile: 'native' });
      const existing = await product('TWIN4');
      const rows: Row[] = [
        ...family('TWIN5'),
        {
          externalId: 'TWIN4-RED',
          parentExternalId: 'twin4',
          level: 'variant',
          name: 'TWIN4 red',
          color: 'Red',
          PLM_ID: 'TWIN4-RED',
        },
      ];
      const result = await run({ file: await file('twin4-parent.csv', toCsv(rows)), profile: 'native' });
      expect(result.catalogueRead.strategy).not.toBe('gets');
      expect(rejectsOf(result).map((reject) => `${reject.externalId} ${reject.code}`)).toEqual([
        'TWIN4-RED missing_parent',
      ]);
      expect(rejectsOf(result)[0]?.message).toBe(
        `row 5, column 'parentExternalId': parent 'twin4' is neither on this sheet nor in the catalogue; the catalogue's style 'TWIN4' (id ${existing.id}) differs from it only in case: write it as 'TWIN4'`,
      );
    });
  });

  describe('11. isComponent is fixed after creation', () => {
    // Spec 01, Product: "isComponent [...] Fixed after creation"; PUT /styles/{id} rule 3: "`parentId` and
    // `isComponent` cannot be changed after creation". The built-in profiles' isComponent default (native: blank cell
    // = false; flat: constant false) is for creating; an existing component is compared only with a stated value.
    it('"`parentId` and `isComponent` cannot be changed after creation": a default isComponent applies only when creating, so an existing component updates and gains children, on both built-in profiles', async () => {
      const component = async (externalId: string) =>
        api('/styles', {
          method: 'POST',
          body: JSON.stringify({
            externalId,
            name: `${externalId} button`,
            styleTypeId: 'st_buttons',
            isComponent: true,
            codes: [{ codeId: 'PLM_ID', codeValue: externalId }],
          }),
        });
      await component('ISC-BTN');
      await component('ISC-FLAT');

      const native = await run({
        file: await file(
          'isc-native.csv',
          toCsv([
            { externalId: 'ISC-BTN', name: 'Corozo button 15 mm' },
            {
              externalId: 'ISC-BTN-BRN',
              parentExternalId: 'ISC-BTN',
              level: 'variant',
              name: 'Brown',
              color: 'Brown',
              PLM_ID: 'ISC-BTN-BRN',
            },
            {
              externalId: 'ISC-NEW',
              level: 'style',
              name: 'New tee',
              styleType: 'T-shirts',
              PLM_ID: 'ISC-NEW',
            },
            {
              externalId: 'ISC-TEE',
              level: 'style',
              name: 'Stated tee',
              styleType: 'T-shirts',
              isComponent: 'no',
              PLM_ID: 'ISC-TEE',
            },
          ]),
        ),
        profile: 'native',
      });
      expect(rejectsOf(native)).toEqual([]);
      expect(native.products).toMatchObject({ updated: 1, created: 3, rejected: 0 });
      expect(await product('ISC-BTN')).toMatchObject({ name: 'Corozo button 15 mm', isComponent: true });
      expect(await product('ISC-BTN-BRN')).toMatchObject({ color: 'Brown' });
      expect(await product('ISC-NEW')).toMatchObject({ isComponent: false }); // the default, on create

      const flat = await run({
        file: await file(
          'isc-flat.csv',
          [
            'Style Number,Style Name,Style Type,Colour Code,Colour,SKU,Size',
            'ISC-FLAT,ISC-FLAT button,Buttons,BRN,Brown,ISC-FLAT-BRN-15,15 mm',
          ].join('\r\n') + '\r\n',
        ),
        profile: 'flat',
      });
      expect(rejectsOf(flat)).toEqual([]);
      expect(flat.products).toMatchObject({ created: 2, rejected: 0 });
      expect(await product('ISC-FLAT')).toMatchObject({ isComponent: true });

      // A value the sheet states is still held to the rule.
      const stated = await run({
        file: await file(
          'isc-stated.csv',
          toCsv([{ externalId: 'ISC-BTN', name: 'Button', isComponent: 'no' }]),
        ),
        profile: 'native',
      });
      expect(rejectsOf(stated).map((reject) => `${reject.externalId} ${reject.code}`)).toEqual([
        'ISC-BTN immutable_field_changed',
      ]);
    });
  });

  describe('12. identifiers in numeric xlsx cells', () => {
    // Spec 01, Product: externalId is the "Caller's own identifier"; codes: "codeId is a code type, codeValue a
    // non-empty string" (UPC_GTIN_12 among the code types). A PLM export keeps a GTIN or an article number as a number
    // cell formatted `000000000000`, and Excel shows it with its leading zeros: that text is the identifier.
    it('"codeValue a non-empty string": a number cell formatted with leading zeros imports as the text Excel shows, for codes and externalIds', async () => {
      const sheet = XLSX.utils.aoa_to_sheet([
        ['externalId', 'level', 'name', 'styleType', 'isComponent', 'UPC_GTIN_12', 'PLM_ID'],
        ['ZERO-1', 'style', 'Zero tee', 'T-shirts', 'no', 12345678905, 'ZERO-1'],
        [42, 'style', 'Numbered tee', 'T-shirts', 'no', 36000291452, 'ZERO-2'],
      ]);
      for (const address of ['F2', 'F3']) (sheet[address] as XLSX.CellObject).z = '000000000000';
      (sheet['A3'] as XLSX.CellObject).z = '00000';
      const book = XLSX.utils.book_new();
      XLSX.utils.book_append_sheet(book, sheet, 'Products');
      const result = await run({
        file: await file('zeros.xlsx', XLSX.write(book, { type: 'buffer', bookType: 'xlsx' }) as Buffer),
        profile: 'native',
      });
      expect(rejectsOf(result)).toEqual([]);
      expect(result.products).toMatchObject({ created: 2 });
      const upc = async (externalId: string) =>
        (
          await api<{ codes: Array<{ codeId: string; codeValue: string }> } | undefined>(
            `/styles/${externalId}`,
          )
        )?.codes.find((code) => code.codeId === 'UPC_GTIN_12')?.codeValue;
      expect(await upc('ZERO-1')).toBe('012345678905');
      expect(await upc('00042')).toBe('036000291452');
    });
  });

  describe('13. weight units', () => {
    // Spec 01, Unit enumeration: "Shared by order lines, BOM lines and weights. Exactly these values". A unit outside
    // it is refused by the API; the dry run refuses it too, for that row, naming the column.
    it('"Exactly these values": a weight unit outside UnitEnum is a row error in the dry run as in the real run, and nothing of it is written', async () => {
      const rows = [
        ...family('UNIT1', { sku: { weightUnit: 'KG' } }),
        ...family('UNIT2', { sku: { weightUnit: 'kilogram' } }),
      ];
      const sheet = await file('units.csv', toCsv(rows));
      const dry = await run({ file: sheet, profile: 'native', dryRun: true });
      const expected = ['UNIT1-BLK-M bad_unit'];
      expect(rejectsOf(dry).map((reject) => `${reject.externalId} ${reject.code}`)).toEqual(expected);
      expect(rejectsOf(dry)[0]?.message).toMatch(
        /row 4, column 'weightUnit': weight unit 'KG' is not one of the API's units/,
      );
      expect(dry.plan).toMatchObject({ create: 5, invalid: 1 });

      const before = snapshot();
      const real = await run({ file: sheet, profile: 'native' });
      expect(rejectsOf(real).map((reject) => `${reject.externalId} ${reject.code}`)).toEqual(expected);
      expect(real.products).toMatchObject({ created: 5, rejectedAtValidation: 1, rejectedByApi: 0 });
      expect(writesSince(before)).toBe(5);
    });
  });
});

describe('PLM import: reference values are identifiers (spec 01, convention 8)', () => {
  // Spec 01, convention 8: "Reference values (process identifiers, style type ids, property ids) are identifiers, never
  // display names." Style types form a tree (`parentId`), so one name can sit under two parents: such a name names no
  // one id, and the row is refused, naming the field, the candidate ids and how to give an id instead.
  let stack: TestStack;
  let dir: string;
  const { api } = sandboxApi(() => stack);

  beforeAll(async () => {
    const seed = buildDemoSeed(Date.now()) as unknown as { catalogue: { styleTypes: unknown[] } };
    seed.catalogue.styleTypes.push(
      { id: 'st_mens_shirts', name: 'Shirts', parentId: 'MENSWEAR', forCompanyId: null },
      { id: 'st_womens_shirts', name: 'Shirts', parentId: 'WOMENSWEAR', forCompanyId: null },
    );
    ({ dir, stack } = await startJobStack('plm-refs-it-', { seed }));
  }, 60_000);

  afterAll(() => stack?.stop());

  it('"identifiers, never display names": a style type name two style types share is refused for its row, naming the field and both ids; the id itself imports', async () => {
    const rows: Row[] = [
      {
        externalId: 'AMB-1',
        level: 'style',
        name: 'Oxford shirt',
        styleType: 'Shirts',
        isComponent: 'no',
        PLM_ID: 'AMB-1',
      },
      {
        externalId: 'AMB-2',
        level: 'style',
        name: 'Tee',
        styleType: 'T-shirts',
        isComponent: 'no',
        PLM_ID: 'AMB-2',
      },
      {
        externalId: 'AMB-3',
        level: 'style',
        name: 'Blouse',
        styleType: 'st_womens_shirts',
        isComponent: 'no',
        PLM_ID: 'AMB-3',
      },
    ];
    const sheet = path.join(dir, 'amb.csv');
    await writeFile(sheet, toCsv(rows));
    const result = await (
      await stack.client.workflow.start(plmImport, {
        args: [{ file: sheet, profile: 'native' }],
        taskQueue: stack.taskQueue,
        workflowId: stack.workflowId('plm-refs'),
      })
    ).result();
    expect(result.products).toMatchObject({ created: 2, rejected: 1 });
    const [header, ...rejected] = parseCsv(readFileSync(result.rejectsFile as string, 'utf8'));
    const at = (name: string) => (header ?? []).indexOf(name);
    expect(
      rejected.filter((cells) => cells.length > 1).map((cells) => [cells[0], cells[at('error_code')]]),
    ).toEqual([['AMB-1', 'ambiguous_reference']]);
    expect(rejected[0]?.[at('error_message')]).toMatch(
      /row 2, column 'styleType': style type 'Shirts' is ambiguous: .*'st_mens_shirts'.*'st_womens_shirts'.*give the id/,
    );
    expect(await api<{ styleTypeId: string }>('/styles/AMB-3')).toMatchObject({
      styleTypeId: 'st_womens_shirts',
    });
    expect(await api<unknown>('/styles/AMB-1')).toBeUndefined();
  });
});
