import { mkdtemp, readFile, writeFile, mkdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  learnedPersonsFile,
  MAX_STORED_EMAILS,
  restoreLearnedPersons,
  storeLearnedPersons,
} from '../../../connectors/erp-orders/persons-store';
import { personIds } from '../../../connectors/erp-orders/reconcile';
import { PersonDirectory } from '../../../connectors/erp-orders/persons';

const COMPANY = 'cmp_brand';

describe('responsible persons learned, kept in the data folder across workers', () => {
  let file: string;
  beforeEach(async () => {
    file = learnedPersonsFile(await mkdtemp(path.join(tmpdir(), 'persons-store-')), COMPANY);
  });
  const fresh = async (): Promise<PersonDirectory> => {
    const persons = new PersonDirectory();
    await restoreLearnedPersons(file, COMPANY, persons);
    return persons;
  };

  it('a new worker compares as the old one learned: one e-mail alone and a pair', async () => {
    const first = new PersonDirectory();
    first.learn(['Ines@example.com'], ['user_ines']);
    first.learn(['a@example.com', 'b@example.com'], ['user_a', 'user_b']);
    await storeLearnedPersons(file, COMPANY, first);

    const next = await fresh();
    const ids = (entries: string[]) => personIds(entries, next.ids, next.groupIds);
    expect(ids(['ines@EXAMPLE.com'])).toEqual(new Set(['user_ines']));
    expect(ids(['b@example.com', 'a@example.com'])).toEqual(new Set(['user_a', 'user_b']));
  });

  it('adds to what another worker stored meanwhile, and stores the e-mails and ids only', async () => {
    const one = new PersonDirectory();
    const two = new PersonDirectory();
    one.seed({ 'given@example.com': 'user_given' });
    one.learn(['x@example.com'], ['user_x']);
    two.learn(['y@example.com'], ['user_y']);
    await storeLearnedPersons(file, COMPANY, one);
    await storeLearnedPersons(file, COMPANY, two);
    const stored = JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;
    expect(Object.keys(stored).sort()).toEqual(['byEmail', 'companyId', 'groups', 'storedAt']);
    expect(stored['byEmail']).toEqual({ 'x@example.com': 'user_x', 'y@example.com': 'user_y' });
  });

  it('writes nothing when nothing was learned', async () => {
    await storeLearnedPersons(file, COMPANY, new PersonDirectory());
    await expect(readFile(file)).rejects.toThrow(/ENOENT/);
  });

  it(`keeps at most ${MAX_STORED_EMAILS} e-mails, the oldest going first`, async () => {
    const persons = new PersonDirectory();
    for (let i = 0; i <= MAX_STORED_EMAILS; i++) persons.learn([`p${i}@example.com`], [`user_${i}`]);
    await storeLearnedPersons(file, COMPANY, persons);
    const next = await fresh();
    expect(next.ids.size).toBe(MAX_STORED_EMAILS);
    expect(next.ids.has('p0@example.com')).toBe(false);
    expect(next.ids.get(`p${MAX_STORED_EMAILS}@example.com`)).toBe(`user_${MAX_STORED_EMAILS}`);
  });

  it("another company's document, or an unreadable one, counts as empty and is replaced", async () => {
    const persons = new PersonDirectory();
    persons.learn(['a@example.com'], ['user_a']);
    await storeLearnedPersons(file, 'cmp_other', persons);
    expect((await fresh()).ids.size).toBe(0);

    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, '{"companyId": "cmp_br');
    expect((await fresh()).ids.size).toBe(0);
    const again = new PersonDirectory();
    again.learn(['b@example.com'], ['user_b']);
    await storeLearnedPersons(file, COMPANY, again);
    expect((await fresh()).ids.get('b@example.com')).toBe('user_b');
  });

  it("a lock file a dead worker left does not stop the saves; a live one's is waited for, else kept for the next save", async () => {
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(`${file}.lock`, JSON.stringify({ at: Date.now() - 60_000 }));
    const persons = new PersonDirectory();
    persons.learn(['a@example.com'], ['user_a']);
    await storeLearnedPersons(file, COMPANY, persons);
    expect((await fresh()).ids.get('a@example.com')).toBe('user_a');

    await writeFile(`${file}.lock`, JSON.stringify({ at: Date.now() }));
    persons.learn(['b@example.com'], ['user_b']);
    await storeLearnedPersons(file, COMPANY, persons);
    expect((await fresh()).ids.has('b@example.com')).toBe(false);
    await rm(`${file}.lock`);
    await storeLearnedPersons(file, COMPANY, persons);
    expect((await fresh()).ids.get('b@example.com')).toBe('user_b');
  });
});
