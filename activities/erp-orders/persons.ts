/**
 * Responsible persons as the platform stores them (user ids), learned from our own writes: the API resolves e-mails
 * to ids but has no endpoint to look them up. Without it, an export that names people by e-mail would look changed
 * on every push. A mapping is learned only when it is unambiguous: one e-mail sent whose id is not otherwise
 * explained by the answer.
 */
export class PersonDirectory {
  private readonly byEmail = new Map<string, string>();

  /** Lower-cased e-mail → user id (the `responsiblePersonIds` of `planOrderSync`). */
  get ids(): ReadonlyMap<string, string> {
    return this.byEmail;
  }

  learn(sent: readonly string[] | undefined, stored: readonly string[] | null | undefined): void {
    if (!sent || !stored) return;
    const storedIds = new Set(stored);
    const unknown = new Set<string>();
    const explained = new Set<string>();
    for (const entry of sent.map((value) => value.trim()).filter((value) => value.length > 0)) {
      const key = entry.toLowerCase();
      const known = this.byEmail.get(key);
      if (known !== undefined) explained.add(known);
      else if (storedIds.has(entry)) explained.add(entry);
      else if (entry.includes('@')) unknown.add(key);
    }
    const unexplained = [...storedIds].filter((id) => !explained.has(id));
    const [email] = unknown;
    const [id] = unexplained;
    if (unknown.size === 1 && unexplained.length === 1 && email !== undefined && id !== undefined)
      this.byEmail.set(email, id);
  }
}
