/**
 * One measurement in a fresh process (clean memory figures): `bare` is SheetJS's XLSX.readFile of the
 * file, `parse` is the connector's read + map + validate. Prints one JSON line.
 * Usage: node bin/run-ts.cjs bench/plm-parse-child.ts bare|parse FILE REFERENCES.json
 */
import { readFileSync } from 'node:fs';
import * as XLSX from 'xlsx';
import { builtinProfile } from '../connectors/plm-import/profiles/builtin';
import { parseProductSheet } from '../connectors/plm-import/profiles/parse-sheet';
import type { ReferenceLists } from '../connectors/plm-import/profiles/references';
import { validateDrafts } from '../connectors/plm-import/validate';

async function main(): Promise<void> {
  const [mode, file, referencesPath] = process.argv.slice(2);
  if ((mode !== 'bare' && mode !== 'parse') || !file || !referencesPath)
    throw new Error('usage: plm-parse-child.ts bare|parse FILE REFERENCES.json');
  const references = JSON.parse(readFileSync(referencesPath, 'utf8')) as ReferenceLists;
  const started = process.hrtime.bigint();
  let detail: Record<string, number> = {};
  if (mode === 'bare') {
    const book = XLSX.readFile(file);
    const sheet = book.Sheets[book.SheetNames[0] ?? ''];
    detail = { cells: sheet ? Object.keys(sheet).length : 0 };
  } else {
    const parsed = await parseProductSheet(file, { profile: builtinProfile('flat'), references });
    const validated = validateDrafts(parsed);
    detail = {
      rows: parsed.rowCount,
      valid: validated.valid.length,
      invalid: validated.invalid.length,
      issues: validated.issues.length,
    };
  }
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  const peakRssMiB = process.resourceUsage().maxRSS / 1024;
  process.stdout.write(
    JSON.stringify({ mode, ms: Math.round(ms), peakRssMiB: Math.round(peakRssMiB), ...detail }) + '\n',
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
