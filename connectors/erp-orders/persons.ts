// What the push knows of responsible persons: the e-mails the export names, as the user ids the platform stores
// (spec 03 answers ids only). Kept across workers and restarts by persons-store.ts.
import { personGroupKey } from './reconcile';

/** What a directory learned (or found wrong) since it was last stored: `null` forgets an entry. */
export interface PersonChanges {
  byEmail: Map<string, string | null>;
  groups: Map<string, string[] | null>;
}

/**
 * Responsible persons as the platform stores them (user ids), learned from our own writes, and given by the run's
 * mapping profile (`responsiblePersonIds`): the API resolves e-mails to ids but has no endpoint to look them up, and
 * every read (GET, list) answers ids only. Without it, an export that names people by e-mail would look changed on
 * every push. An answer tells the ids of the e-mails it resolved as a set: one e-mail left unexplained maps to the
 * one id left; several map together, as a group (`personIds` in reconcile.ts), which is exact for the same set of
 * people and says nothing of each alone. A learned id the answer contradicts (that user left, the data folder served
 * another company) is forgotten and learned again. What was learned outlives the worker through the run-data store
 * (persons-store.ts): `restore` takes it in, `takeChanges` gives what is new since.
 */
export class PersonDirectory {
  private readonly byEmail = new Map<string, string>();
  private readonly groups = new Map<string, string[]>();
  /** E-mails the mapping profile gave: they stand over learned and stored ones, and are never stored. */
  private readonly given = new Set<string>();
  private changes: PersonChanges = { byEmail: new Map(), groups: new Map() };

  /** Lower-cased e-mail → user id (the `responsiblePersonIds` of `planOrderSync`). */
  get ids(): ReadonlyMap<string, string> {
    return this.byEmail;
  }

  /** `personGroupKey` of several e-mails → their ids (the `responsiblePersonGroups` of `planOrderSync`). */
  get groupIds(): ReadonlyMap<string, readonly string[]> {
    return this.groups;
  }

  /**
   * Stored user ids in the e-mails the export names them by, as far as this directory knows them: each id by the
   * e-mail learned or given for it, the ids of a known group together by its e-mails; an id nobody named stays.
   */
  emailsOf(ids: readonly string[]): string[] {
    const emailById = new Map<string, string>();
    for (const [email, id] of this.byEmail) if (!emailById.has(id)) emailById.set(id, email);
    const left = new Set(ids.filter((id) => !emailById.has(id)));
    const grouped: string[] = [];
    for (const [key, groupIds] of this.groups) {
      if (groupIds.length === 0 || !groupIds.every((id) => left.has(id))) continue;
      grouped.push(...key.split('\n'));
      for (const id of groupIds) left.delete(id);
    }
    return [
      ...ids.flatMap((id) => {
        const email = emailById.get(id);
        return email !== undefined ? [email] : [];
      }),
      ...grouped,
      ...left,
    ];
  }

  /** Mappings the operator gave (the mapping profile's `responsiblePersonIds`): they stand over learned ones. */
  seed(given: Readonly<Record<string, string>>): void {
    for (const [email, id] of Object.entries(given)) {
      const key = email.trim().toLowerCase();
      this.byEmail.set(key, id);
      this.given.add(key);
      this.changes.byEmail.delete(key);
    }
  }

  /** Mappings stored by this or another worker; not over given ones, nor over what this one learned since. */
  restore(stored: PersonChanges): void {
    for (const [email, id] of stored.byEmail) {
      if (this.given.has(email) || this.changes.byEmail.has(email)) continue;
      if (id === null) this.byEmail.delete(email);
      else this.byEmail.set(email, id);
    }
    for (const [key, ids] of stored.groups) {
      if (this.changes.groups.has(key)) continue;
      if (ids === null) this.groups.delete(key);
      else this.groups.set(key, ids);
    }
  }

  /** What was learned or forgotten since the last call, to store; `putBack` when storing it failed. */
  takeChanges(): PersonChanges {
    const taken = this.changes;
    this.changes = { byEmail: new Map(), groups: new Map() };
    return taken;
  }

  putBack(changes: PersonChanges): void {
    for (const [email, id] of changes.byEmail)
      if (!this.changes.byEmail.has(email)) this.changes.byEmail.set(email, id);
    for (const [key, ids] of changes.groups)
      if (!this.changes.groups.has(key)) this.changes.groups.set(key, ids);
  }

  learn(sent: readonly string[] | undefined, stored: readonly string[] | null | undefined): void {
    if (!sent || !stored) return;
    const entries = sent.map((value) => value.trim()).filter((value) => value.length > 0);
    const storedIds = new Set(stored);
    // All e-mails, nothing given as an id: the answer's ids are exactly what this set of people resolves to.
    if (entries.length > 1 && entries.every((entry) => entry.includes('@')))
      this.setGroup(personGroupKey(entries), [...storedIds]);
    const unknown = new Set<string>();
    const explained = new Set<string>();
    for (const entry of entries) {
      const key = entry.toLowerCase();
      const known = this.byEmail.get(key);
      if (known !== undefined && (storedIds.has(known) || this.given.has(key))) explained.add(known);
      else if (storedIds.has(entry)) explained.add(entry);
      else if (entry.includes('@')) {
        // Learned before, and the server resolved it to another id now: what was learned is wrong.
        if (known !== undefined) this.forget(key);
        unknown.add(key);
      }
    }
    const unexplained = [...storedIds].filter((id) => !explained.has(id));
    if (unknown.size === 0 || unknown.size !== unexplained.length) return;
    const [email] = unknown;
    const [id] = unexplained;
    if (unknown.size === 1 && email !== undefined && id !== undefined) {
      this.byEmail.set(email, id);
      this.changes.byEmail.set(email, id);
    } else this.setGroup(personGroupKey(unknown), unexplained);
  }

  private setGroup(key: string, ids: string[]): void {
    const sorted = [...ids].sort();
    const known = this.groups.get(key);
    if (known && known.length === sorted.length && known.every((id, index) => id === sorted[index])) return;
    this.groups.set(key, sorted);
    this.changes.groups.set(key, sorted);
  }

  private forget(email: string): void {
    this.byEmail.delete(email);
    this.changes.byEmail.set(email, null);
  }
}
