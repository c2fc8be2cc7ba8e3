/**
 * PLM parse benchmark: a generated 100,000-row flat xlsx (5,000 styles x 4 colours x 5 sizes), parsed
 * and validated by the connector, next to SheetJS's bare XLSX.readFile of the same file. Each run is a
 * child process, so time and peak RSS are clean. Aim: within 1.5x of the bare read, under 1 GiB.
 * Run: node bin/run-ts.cjs bench/plm-parse.ts [rows] [repeats]
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import * as XLSX from 'xlsx';

const COLOURS = [
  ['BLK', 'Black'],
  ['WHT', 'White'],
  ['NVY', 'Navy'],
  ['RED', 'Red'],
] as const;
const SIZES = ['XS', 'S', 'M', 'L', 'XL'] as const;
function generate(path: string, rows: number): void {
  const header = [
    'Style Number',
    'Style Name',
    'Style Type',
    'Brand',
    'Season',
    'Gender',
    'Description',
    'Composition',
    'Colour Code',
    'Colour',
    'Size',
    'SKU',
    'EAN',
    'Weight (g)',
  ];
  const data: Array<Array<string | number | null>> = [header];
  const perStyle = COLOURS.length * SIZES.length;
  for (let i = 0; i < rows; i++) {
    const style = Math.floor(i / perStyle);
    const colour = COLOURS[Math.floor((i % perStyle) / SIZES.length)] ?? COLOURS[0];
    const size = SIZES[i % SIZES.length] ?? 'M';
    const number = `ST${String(100000 + style)}`;
    const first = i % perStyle === 0;
    data.push([
      number,
      first ? `Style ${style} essential tee` : null,
      first ? (style % 3 === 0 ? 'Jeans' : style % 3 === 1 ? 'T-Shirt' : 'Jacket') : null,
      first ? (style % 2 === 0 ? 'Northwind' : 'Southwind') : null,
      first ? (style % 2 === 0 ? 'SS25' : 'AW25') : null,
      first ? 'Unisex' : null,
      first ? `Organic cotton garment number ${style}, garment dyed, regular fit.` : null,
      first ? '95% Cotton, 5% Elastane' : null,
      colour[0],
      colour[1],
      size,
      `${number}-${colour[0]}-${size}`,
      String(4000000000000 + i),
      150 + (i % 50),
    ]);
  }
  const book = XLSX.utils.book_new();
  XLSX.utils.book_append_sheet(book, XLSX.utils.aoa_to_sheet(data), 'Products');
  XLSX.writeFile(book, path, { compression: true });
}

interface Measurement {
  mode: string;
  ms: number;
  peakRssMiB: number;
  [key: string]: number | string;
}

function measure(mode: 'bare' | 'parse', file: string, referencesPath: string): Measurement {
  const root = resolve(__dirname, '..');
  const output = execFileSync(
    process.execPath,
    [join(root, 'bin', 'run-ts.cjs'), join(root, 'bench', 'plm-parse-child.ts'), mode, file, referencesPath],
    {
      encoding: 'utf8',
      maxBuffer: 1024 * 1024,
    },
  );
  return JSON.parse(output.trim().split('\n').pop() ?? '{}') as Measurement;
}

const median = (values: number[]): number =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

function main(): void {
  const rows = Number(process.argv[2] ?? 100_000);
  const repeats = Number(process.argv[3] ?? 3);
  const dir = mkdtempSync(join(tmpdir(), 'plm-bench-'));
  try {
    const file = join(dir, 'plm-flat.xlsx');
    // The reference lists the PLM fixtures are written against (a superset of what the generated rows name).
    const referencesPath = resolve(__dirname, '..', 'test', 'fixtures', 'plm', 'references.json');
    let started = Date.now();
    generate(file, rows);
    console.log(
      `generated ${rows} rows, ${(statSync(file).size / 1024 / 1024).toFixed(1)} MiB on disk, in ${Date.now() - started} ms`,
    );
    const runs: Record<'bare' | 'parse', Measurement[]> = { bare: [], parse: [] };
    for (let i = 0; i < repeats; i++) {
      for (const mode of ['bare', 'parse'] as const) {
        started = Date.now();
        const result = measure(mode, file, referencesPath);
        runs[mode].push(result);
        console.log(
          `  run ${i + 1} ${mode.padEnd(5)} ${String(result.ms).padStart(6)} ms  peak RSS ${result.peakRssMiB} MiB  ${JSON.stringify(result)}`,
        );
      }
    }
    const bareMs = median(runs.bare.map((run) => run.ms));
    const parseMs = median(runs.parse.map((run) => run.ms));
    const bareRss = median(runs.bare.map((run) => run.peakRssMiB));
    const parseRss = median(runs.parse.map((run) => run.peakRssMiB));
    const ratio = parseMs / bareMs;
    console.log('');
    console.log(`SheetJS XLSX.readFile (bare)        median ${bareMs} ms, peak RSS ${bareRss} MiB`);
    console.log(`connector parse + validate (flat)   median ${parseMs} ms, peak RSS ${parseRss} MiB`);
    console.log(
      `ratio ${ratio.toFixed(2)}x (aim <= 1.5x): ${ratio <= 1.5 ? 'ok' : 'OVER'}; peak RSS ${parseRss} MiB (aim < 1024): ${parseRss < 1024 ? 'ok' : 'OVER'}`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main();
