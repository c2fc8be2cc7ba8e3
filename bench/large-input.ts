/**
 * Large and hostile input the readers must take in time linear in its size ("no input can stall a worker"): for
 * each shape, the time the job's own parsing takes to its answer, against a budget. The shapes are the ones a
 * session 45 audit measured super-linear: a 32,000-character cell of spaces (the trim), a composition label run
 * of spaces, one style over 80,000 SKU rows, 10,000 rows naming an unknown style type among 300 ("did you mean"),
 * a native parent chain listed child-first (the level walk), 80,000 new SKUs under one archived variant planned with
 * unarchive (their rows gathered on its unarchive step), one ERP order of 60,000 lines, and 20,000 orders half
 * of which name a supplier code missing from a 5,000-company network. Each case runs in this process one after
 * the other; the answers (drafts, issues, rejections) are printed beside the time so a fast wrong answer shows.
 * Exits 1 when a case is over its budget or throws.
 * Run: node bin/run-ts.cjs bench/large-input.ts [--only plm-spaces,erp-one-order]
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { readFileSync } from 'node:fs';
import { buildOrders, type BuildContext } from '../connectors/erp-orders/orders/build';
import { companyResolverFromDirectory } from '../connectors/erp-orders/orders/lookups';
import { DEFAULT_PROFILE, loadProfileFile } from '../connectors/erp-orders/profile';
import { readExportFile } from '../connectors/erp-orders/read';
import type { ExportTable } from '../connectors/erp-orders/read/types';
import { CatalogueIndex, parseExistingProducts } from '../connectors/plm-import/catalogue';
import { planImport } from '../connectors/plm-import/plan';
import { builtinProfile } from '../connectors/plm-import/profiles/builtin';
import { parseProductSheet } from '../connectors/plm-import/profiles/parse-sheet';
import type { ReferenceLists } from '../connectors/plm-import/profiles/references';
import { parseMappingProfile } from '../connectors/plm-import/profiles/schema';
import { validateDrafts } from '../connectors/plm-import/validate';
import { largeOrderExport } from '../test/bad-input/corpus';
import { CONTEXT } from '../test/unit/erp/support';

const ROOT = path.join(__dirname, '..');

interface Case {
  name: string;
  what: string;
  budgetMs: number;
  /** Writes the case's input, outside the time measured. */
  prepare?: () => void;
  /** Runs the case and says what it answered (counts), so a fast wrong answer shows. */
  run: () => Promise<string>;
}

const dir = mkdtempSync(path.join(tmpdir(), 'bench-large-input-'));
const flatProfile = parseMappingProfile(
  JSON.parse(readFileSync(path.join(ROOT, 'examples/plm/flat-sku-export.mapping.json'), 'utf8')),
);
const FLAT_HEADER =
  'Style Number,Style Name,Description,Gender,Style Type,Brand,Season,Composition,Colour Code,Colour,SKU,Size,Weight (g),EAN';

/** A flat PLM csv of `rows` rows, each from `row(i)`, parsed and validated as the import does. */
async function plmFlat(name: string, rows: number, row: (i: number) => string, references?: ReferenceLists) {
  const file = path.join(dir, `${name}.csv`);
  const lines = [FLAT_HEADER];
  for (let i = 0; i < rows; i++) lines.push(row(i));
  writeFileSync(file, `${lines.join('\r\n')}\r\n`);
  const parsed = await parseProductSheet(file, {
    profile: flatProfile,
    ...(references ? { references } : {}),
  });
  const validated = validateDrafts(parsed);
  return `${validated.valid.length} valid, ${parsed.issues.length + validated.issues.length} issues`;
}

const STYLE_TYPES: ReferenceLists['styleTypes'] = Array.from({ length: 300 }, (_, i) => ({
  id: `st_${i}`,
  name: `Style type number ${i}`,
  parentId: 'lvl_style',
}));

const ERP_COLUMNS = [
  'order_number',
  'supplier_code',
  'buyer_facility_process',
  'supplier_facility_process',
  'order_date',
  'line_number',
  'product_external_id',
  'quantity',
  'unit',
];

/** ERP rows through the eu profile's build, as the push's prepare step runs it. */
async function erpBuild(rows: Array<Record<string, string>>, companies: number): Promise<string> {
  const profile = await loadProfileFile(path.join(ROOT, 'examples/erp/profile-eu.json'));
  const context: BuildContext = {
    ownCompanyId: 'own',
    companies: companyResolverFromDirectory(
      Array.from({ length: companies }, (_, i) => ({ id: `c_${i}`, code: `SUP-${10000 + i}` })),
    ),
    facilityProcesses: [
      { id: 'fp1', name: 'Warehouse' },
      { id: 'fp2', name: 'Cut make trim' },
    ],
  };
  const table: ExportTable = {
    format: 'csv',
    columns: ERP_COLUMNS,
    rows: rows.map((values, i) => ({ row: i + 2, values })),
  };
  const built = buildOrders(table, profile, context);
  return `${built.drafts.length} orders, ${built.rejections.length} rejected`;
}

const erpRow = (order: string, supplier: string, line: number): Record<string, string> => ({
  order_number: order,
  supplier_code: supplier,
  buyer_facility_process: 'Warehouse',
  supplier_facility_process: 'Cut make trim',
  order_date: '01/03/2024',
  line_number: String(line),
  product_external_id: `P-${order}-${line}`,
  quantity: '1',
  unit: 'pcs',
});

/** Rows `erp-50mb-export` wrote. */
let erpExportRows = 0;

const CASES: Case[] = [
  {
    name: 'plm-spaces',
    what: 'PLM csv, 80 rows whose description is 32,000 spaces between two words',
    budgetMs: 1_000,
    run: () =>
      plmFlat(
        'spaces',
        80,
        (i) =>
          `ST-${i},Knit ${i},Fine${' '.repeat(32_000)}knit,Women,Knitwear,Nordic Threads,AW25,100% Cotton,GRY,Grey,ST-${i}-GRY-S,S,310,`,
      ),
  },
  {
    name: 'plm-composition-label',
    what: 'PLM csv, 80 rows whose composition is "a" + 32,000 spaces + "b"',
    budgetMs: 1_000,
    run: () =>
      plmFlat(
        'composition',
        80,
        (i) =>
          `ST-${i},Knit ${i},d,Women,Knitwear,Nordic Threads,AW25,a${' '.repeat(32_000)}b,GRY,Grey,ST-${i}-GRY-S,S,310,`,
      ),
  },
  {
    name: 'plm-one-style',
    what: 'PLM csv, one style and colour over 80,000 SKU rows',
    budgetMs: 15_000,
    run: () =>
      plmFlat(
        'one-style',
        80_000,
        (i) => `S1,Knit,d,Women,Knitwear,Nordic Threads,AW25,100% Cotton,GRY,Grey,S1-${i},${i},310,`,
      ),
  },
  {
    name: 'plm-shared-ean',
    what: 'PLM csv, 20,000 SKUs sharing one placeholder EAN (each told once, naming 3 others)',
    budgetMs: 10_000,
    run: () =>
      plmFlat(
        'shared-ean',
        20_000,
        (i) =>
          `ST-${i},Knit ${i},d,Women,Knitwear,Nordic Threads,AW25,100% Cotton,GRY,Grey,ST-${i}-GRY-S,S,310,0000000000000`,
      ),
  },
  {
    name: 'plm-unknown-type',
    what: 'PLM csv, 10,000 styles naming an unknown style type among 300',
    budgetMs: 8_000,
    run: () =>
      plmFlat(
        'unknown-type',
        10_000,
        (i) =>
          `ST-${i},Knit ${i},d,Women,Kintwear hoodie,Nordic Threads,AW25,100% Cotton,GRY,Grey,ST-${i}-GRY-S,S,310,`,
        { styleTypes: STYLE_TYPES },
      ),
  },
  {
    name: 'plm-parent-chain',
    what: 'PLM native csv, a 8,000-row parent chain listed child-first (a mis-mapped parent column)',
    budgetMs: 3_000,
    run: async () => {
      const file = path.join(dir, 'chain.csv');
      const lines = ['externalId,parentExternalId,name,styleType,isComponent'];
      for (let i = 7_999; i >= 0; i--)
        lines.push(`P${i},${i === 0 ? '' : `P${i - 1}`},Item ${i},T-shirts,no`);
      writeFileSync(file, `${lines.join('\n')}\n`);
      const parsed = await parseProductSheet(file, { profile: builtinProfile('native') });
      const validated = validateDrafts(parsed);
      return `${validated.valid.length} valid, ${parsed.issues.length + validated.issues.length} issues`;
    },
  },
  {
    name: 'plm-plan-unarchive',
    what: 'PLM native csv, 80,000 new SKUs under one archived variant, planned with unarchive',
    budgetMs: 15_000,
    run: async () => {
      const file = path.join(dir, 'under-archived.csv');
      const lines = ['externalId,parentExternalId,name,dimension,PLM_ID'];
      for (let i = 0; i < 80_000; i++) lines.push(`K${i},V1,Item ${i},S,K${i}`);
      writeFileSync(file, `${lines.join('\n')}\n`);
      const existing = parseExistingProducts([
        { id: 's1', externalId: 'S1', level: 'style', name: 'Knit' },
        { id: 'v1', externalId: 'V1', level: 'variant', styleId: 's1', name: 'Knit grey', isArchived: true },
      ]);
      const parsed = await parseProductSheet(file, { profile: builtinProfile('native') });
      const validated = validateDrafts(parsed, { existing: new CatalogueIndex(existing).levels() });
      const plan = planImport(validated, existing, { unarchive: true });
      const unarchive = plan.writes.find((step) => step.action === 'update');
      return `${plan.counts.create} creates, ${plan.counts.update} unarchive of ${unarchive?.rowNumbers.length ?? 0} rows, ${plan.issues.length} issues`;
    },
  },
  {
    name: 'erp-one-order',
    what: 'ERP build, one order of 60,000 lines',
    budgetMs: 15_000,
    run: () =>
      erpBuild(
        Array.from({ length: 60_000 }, (_, i) => erpRow('PO-1', 'SUP-10001', i + 1)),
        10,
      ),
  },
  {
    name: 'erp-50mb-export',
    what: 'ERP read and build of a 50 MB csv export, 4 lines an order, a 200-character note each',
    budgetMs: 60_000,
    prepare: () => {
      erpExportRows = largeOrderExport(path.join(dir, 'erp-50mb.csv'), 50 * 1024 * 1024);
    },
    run: async () => {
      const table = await readExportFile(path.join(dir, 'erp-50mb.csv'));
      const built = buildOrders(table, DEFAULT_PROFILE, CONTEXT);
      return `${table.rows.length} of ${erpExportRows} rows read, ${built.drafts.length} orders, ${built.rejections.length} rejected`;
    },
  },
  {
    name: 'erp-unknown-suppliers',
    what: 'ERP build, 20,000 one-line orders, half naming a supplier code missing from 5,000 companies',
    budgetMs: 15_000,
    run: () =>
      erpBuild(
        Array.from({ length: 20_000 }, (_, i) =>
          erpRow(`PO-${i}`, i % 2 === 1 ? `VEND-${i}` : `SUP-${10000 + (i % 5_000)}`, 1),
        ),
        5_000,
      ),
  },
];

async function main(): Promise<void> {
  const onlyAt = process.argv.indexOf('--only');
  const only = onlyAt >= 0 ? new Set((process.argv[onlyAt + 1] ?? '').split(',')) : undefined;
  const unknown = only ? [...only].filter((name) => !CASES.some((c) => c.name === name)) : [];
  if (unknown.length > 0) {
    console.error(
      `unknown case(s): ${unknown.join(', ')}; choose from ${CASES.map((c) => c.name).join(', ')}`,
    );
    process.exit(2);
  }
  let over = 0;
  for (const item of CASES.filter((c) => only === undefined || only.has(c.name))) {
    item.prepare?.();
    const started = performance.now();
    let answer: string;
    try {
      answer = await item.run();
    } catch (error) {
      answer = `THREW ${error instanceof Error ? error.message.slice(0, 120) : String(error)}`;
      over += 1;
    }
    const ms = performance.now() - started;
    const ok = ms <= item.budgetMs && !answer.startsWith('THREW');
    if (ms > item.budgetMs) over += 1;
    console.log(
      `${item.name.padEnd(22)} ${`${Math.round(ms)} ms`.padStart(10)}  (budget ${item.budgetMs} ms) ${ok ? 'ok  ' : 'OVER'}  ${item.what}: ${answer}`,
    );
  }
  rmSync(dir, { recursive: true, force: true });
  process.exit(over === 0 ? 0 : 1);
}

void main();
