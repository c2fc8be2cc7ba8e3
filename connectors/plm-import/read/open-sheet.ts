import { open, stat } from 'node:fs/promises';
import { extname } from 'node:path';
import { PlmFileError } from '../issues';
import { openCsv } from './csv';
import type { OpenedSheet, ReadOptions } from './sheet';
import { openWorkbook, sniffWorkbook } from './workbook';

async function head(path: string): Promise<Buffer> {
  const handle = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(8);
    const { bytesRead } = await handle.read(buffer, 0, 8, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/**
 * Opens a product sheet (csv, xlsx or xls), finds its header row and returns the headers with a
 * one-shot stream of data rows. The format comes from the file's bytes; a file named .xlsx/.xls that
 * is not a workbook is refused. Throws PlmFileError with a message an operator can act on.
 */
export async function openSheet(path: string, options: ReadOptions = {}): Promise<OpenedSheet> {
  const info = await stat(path).catch(() => null);
  if (!info || !info.isFile())
    throw new PlmFileError('file_not_found', `${path} does not exist or is not a file.`);
  if (info.size === 0)
    throw new PlmFileError('empty_file', `${path} is empty (0 bytes). Export the sheet again.`);
  const extension = extname(path).toLowerCase();
  const sniffed = sniffWorkbook(await head(path));
  if (sniffed !== null) return openWorkbook(path, info.size, sniffed, options);
  if (extension === '.xlsx' || extension === '.xlsm' || extension === '.xls') {
    return openWorkbook(path, info.size, extension === '.xls' ? 'xls' : 'xlsx', options);
  }
  return openCsv(path, info.size, options);
}
