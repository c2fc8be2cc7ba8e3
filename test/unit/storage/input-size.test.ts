/**
 * A job's input is copied into its run folder (and published to the run-data store) before any reader checks its
 * size: a 10 GB file named as an export was copied (and uploaded) whole, minutes of disk and network, only to be
 * refused by the reader's 100 MiB limit afterwards.
 */
import { closeSync, ftruncateSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import { access } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inputLimits } from '../../../connectors/input-limits';
import { copyInput } from '../../../connectors/storage';

describe('copying a job input bigger than any reader takes', () => {
  const dir = mkdtempSync(join(tmpdir(), 'input-size-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('a local file over the largest input limit is refused before a byte is copied', async () => {
    const file = join(dir, 'export.csv');
    // Sparse: no disk used.
    const fd = openSync(file, 'w');
    ftruncateSync(fd, inputLimits.textFileBytes + 1);
    closeSync(fd);
    const copy = join(dir, 'run', 'source.csv');
    await expect(copyInput(file, copy)).rejects.toMatchObject({
      code: 'file_too_large',
      message: expect.stringContaining(inputLimits.textFileBytes.toLocaleString('en-US')),
    });
    await expect(access(copy)).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
