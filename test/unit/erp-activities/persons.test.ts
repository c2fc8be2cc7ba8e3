import { personIds } from '../../../connectors/erp-orders/reconcile';
import { PersonDirectory } from '../../../connectors/erp-orders/persons';

describe('PersonDirectory: e-mails learned from the ids the API stored', () => {
  it('learns one e-mail per answer, case-insensitively', () => {
    const persons = new PersonDirectory();
    persons.learn(['Ines.Buyer@example.com'], ['user_1']);
    expect(persons.ids.get('ines.buyer@example.com')).toBe('user_1');
  });

  it('learns a second e-mail once the first is known, and ignores entries given as ids', () => {
    const persons = new PersonDirectory();
    persons.learn(['a@example.com'], ['user_a']);
    persons.learn(['user_z', 'a@example.com', 'b@example.com'], ['user_z', 'user_a', 'user_b']);
    expect(persons.ids.get('b@example.com')).toBe('user_b');
  });

  it('does not guess when two unknown e-mails come back as two ids', () => {
    const persons = new PersonDirectory();
    persons.learn(['a@example.com', 'b@example.com'], ['user_a', 'user_b']);
    expect(persons.ids.size).toBe(0);
  });

  it('keeps two unknown e-mails as a group: the same people compare as the ids, each alone does not', () => {
    const persons = new PersonDirectory();
    persons.learn(['a@example.com', 'B@example.com'], ['user_b', 'user_a']);
    const ids = (entries: string[]) => personIds(entries, persons.ids, persons.groupIds);
    expect(ids(['b@example.com', 'A@Example.com'])).toEqual(new Set(['user_a', 'user_b']));
    expect(ids(['a@example.com'])).toEqual(new Set(['a@example.com']));
    expect(ids(['a@example.com', 'c@example.com'])).toEqual(new Set(['a@example.com', 'c@example.com']));
  });

  it('learns nothing of each e-mail when the answer holds more or fewer ids than the e-mails it left unexplained', () => {
    const persons = new PersonDirectory();
    persons.learn(['a@example.com', 'b@example.com'], ['user_a']);
    persons.learn(['c@example.com'], ['user_c', 'user_d']);
    expect(persons.ids.size).toBe(0);
    const ids = (entries: string[]) => personIds(entries, persons.ids, persons.groupIds);
    // The pair as the server stored it (two addresses of one user), and nothing of c.
    expect(ids(['b@example.com', 'a@example.com'])).toEqual(new Set(['user_a']));
    expect(ids(['c@example.com'])).toEqual(new Set(['c@example.com']));
  });

  it("takes the mapping profile's e-mails over learned ones, case-insensitively", () => {
    const persons = new PersonDirectory();
    persons.learn(['a@example.com'], ['user_old']);
    persons.seed({ 'A@Example.com ': 'user_a' });
    expect(persons.ids.get('a@example.com')).toBe('user_a');
  });
});

describe('PersonDirectory: what was learned stays right', () => {
  const idsOf = (persons: PersonDirectory, entries: string[]) =>
    personIds(entries, persons.ids, persons.groupIds);

  it('forgets a learned id the server contradicts and learns the one it stored', () => {
    const persons = new PersonDirectory();
    persons.restore({ byEmail: new Map([['a@example.com', 'user_gone']]), groups: new Map() });
    persons.learn(['a@example.com'], ['user_a']);
    expect(idsOf(persons, ['A@example.com'])).toEqual(new Set(['user_a']));
    expect(persons.takeChanges().byEmail).toEqual(new Map([['a@example.com', 'user_a']]));
  });

  it('a pair learned together still compares as the pair once one of them is learned alone', () => {
    const persons = new PersonDirectory();
    persons.learn(['a@example.com', 'b@example.com'], ['user_a', 'user_b']);
    persons.learn(['a@example.com'], ['user_a']);
    expect(idsOf(persons, ['b@example.com', 'a@example.com'])).toEqual(new Set(['user_a', 'user_b']));
  });

  it("a pair's ids the server no longer gives are replaced by its next answer", () => {
    const persons = new PersonDirectory();
    persons.learn(['a@example.com', 'b@example.com'], ['user_a', 'user_b']);
    persons.learn(['a@example.com', 'b@example.com'], ['user_a', 'user_b2']);
    expect(idsOf(persons, ['a@example.com', 'b@example.com'])).toEqual(new Set(['user_a', 'user_b2']));
  });

  it("never offers the mapping profile's e-mails for storing, and keeps them over stored ones", () => {
    const persons = new PersonDirectory();
    persons.seed({ 'a@example.com': 'user_a' });
    persons.restore({ byEmail: new Map([['a@example.com', 'user_other']]), groups: new Map() });
    persons.learn(['a@example.com', 'b@example.com'], ['user_a', 'user_b']);
    expect(persons.ids.get('a@example.com')).toBe('user_a');
    expect([...persons.takeChanges().byEmail]).toEqual([['b@example.com', 'user_b']]);
  });
});
