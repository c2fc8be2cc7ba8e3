import { writtenAtFork } from '../../../connectors/bom-repair/fork-evidence';
import { line } from './fixtures';

/**
 * Spec 02: a line written through an inherited link makes the copy ("header duplicated …, lines copied") and keeps
 * the values sent, so a fork made by adding a line holds that line with its component; a fork made by a line delete
 * or a header edit holds none. One request writes the header and the line, but each takes its own instant.
 */
describe('the line the forking write added', () => {
  const forkAt = '2025-02-01T00:00:00.000Z';
  const forkMs = Date.parse(forkAt);
  const at = (ms: number) => new Date(forkMs + ms).toISOString();

  it('counts a line with its component stamped a millisecond after the fork header', () => {
    const added = line({ styleId: 'style_zip', createdAt: at(1) });
    expect(writtenAtFork([added], forkMs)).toBe(1);
  });

  it('does not count the copies (no component), nor a line added by a later write, nor one edited later', () => {
    const copy = line({ createdAt: forkAt });
    const later = line({ styleId: 'style_zip', createdAt: at(60_000) });
    const edited = { ...line({ styleId: 'style_zip', createdAt: forkAt }), updatedAt: at(60_000) };
    expect(writtenAtFork([copy, later, edited], forkMs)).toBe(0);
  });
});
