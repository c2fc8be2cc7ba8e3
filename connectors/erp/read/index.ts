import { createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { readCsv } from './csv';
import { readJson, readNdjson } from './json';
import { ExportReadError, type ExportFormat, type ExportTable } from './types';
import { readXlsx } from './xlsx';

export { guessDelimiter, readCsv, uniqueHeader, type TextSource } from './csv';
export { readJson, readJsonArray, readNdjson } from './json';
export { declaredUncompressedBytes, MAX_XLSX_UNCOMPRESSED_BYTES, readXlsx } from './xlsx';
export * from './types';

const EXTENSIONS: Readonly<Record<string, ExportFormat>> = {
  '.csv': 'csv',
  '.txt': 'csv',
  '.tsv': 'csv',
  '.xlsx': 'xlsx',
  '.json': 'json',
  '.ndjson': 'ndjson',
  '.jsonl': 'ndjson',
};

/** The format a file name implies, or an error naming the supported extensions. */
export function formatOfFile(fileName: string): ExportFormat {
  const format = EXTENSIONS[extname(fileName).toLowerCase()];
  if (!format) {
    throw new ExportReadError(`cannot tell the format of '${fileName}': use one of ${Object.keys(EXTENSIONS).join(', ')}`);
  }
  return format;
}

export interface ReadOptions {
  /** Overrides the format the extension implies. */
  format?: ExportFormat;
  /** xlsx: the sheet to read (default the first). */
  sheet?: string;
  /** xlsx: refuse workbooks declaring more uncompressed bytes than this (default `MAX_XLSX_UNCOMPRESSED_BYTES`). */
  maxUncompressedBytes?: number;
}

/** Reads an export file; csv and ndjson are streamed, xlsx and json arrays are read whole. */
export async function readExportFile(path: string, options: ReadOptions = {}): Promise<ExportTable> {
  const format = options.format ?? formatOfFile(path);
  switch (format) {
    case 'csv':
      return readCsv(createReadStream(path));
    case 'ndjson':
      return readNdjson(createReadStream(path));
    case 'xlsx':
      return readXlsx(await readFile(path), options.sheet, options.maxUncompressedBytes);
    case 'json':
      return readJson(await readFile(path));
  }
}

/** Reads an export already in memory (for example from the staging store). */
export async function readExportContent(content: Buffer | string, format: ExportFormat, sheet?: string): Promise<ExportTable> {
  switch (format) {
    case 'csv':
      return readCsv(content);
    case 'ndjson':
      return readNdjson(content);
    case 'xlsx':
      return readXlsx(typeof content === 'string' ? Buffer.from(content, 'binary') : content, sheet);
    case 'json':
      return readJson(content);
  }
}
