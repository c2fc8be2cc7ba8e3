import { PersonDirectory } from '../../../connectors/erp-orders/sync-order';

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
});
