/**
 * What the push learned of responsible persons (e-mail → user id), kept in the run-data store across workers and
 * restarts, one document per company (user ids resolve within the caller's company). A worker that did not know them
 * would PATCH every order naming people by e-mail once, and spec 03 makes even an unchanged PATCH a write: it bumps
 * `updatedAt` (the next pull exports the order again), records an audit entry, and on a traced order re-syncs the
 * tracing orders and notifies the counterparty. The document holds e-mails and user ids only; never a key, nor what
 * the mapping profile gave (the profile is read again on each run).
 */

import { join } from 'node:path';
import { z } from 'zod';
import { locate, mergeIntoStored } from '../storage';
import type { PersonChanges, PersonDirectory } from './persons';

/** Bounds of the document: a company's responsible persons are far fewer; past them the oldest entries go first. */
export const MAX_STORED_EMAILS = 5_000;
export const MAX_STORED_GROUPS = 1_000;
/** Longest e-mail (RFC 5321's path limit) and id stored, and most people in one stored group. */
const MAX_EMAIL_LENGTH = 254;
const MAX_ID_LENGTH = 255;
const MAX_GROUP_SIZE = 20;

const storedPersonsSchema = z.strictObject({
  companyId: z.string(),
  /** Lower-cased e-mail → user id, oldest first. */
  byEmail: z.record(z.string(), z.string()),
  /** `personGroupKey` of several e-mails → their ids, oldest first. */
  groups: z.record(z.string(), z.array(z.string())),
  storedAt: z.string(),
});
type StoredPersons = z.infer<typeof storedPersonsSchema>;

/** `<dataDir>/erp-orders/responsible-persons-<company>.json` (the company id made safe for a file name). */
export function learnedPersonsFile(dataDir: string, companyId: string): string {
  return join(dataDir, 'erp-orders', `responsible-persons-${companyId.replace(/[^A-Za-z0-9_-]/g, '_')}.json`);
}

/** The stored document; an unreadable one (or another company's) counts as empty: it is only ever a shortcut. */
function parseStored(body: Buffer | null, companyId: string): StoredPersons | undefined {
  if (body === null) return undefined;
  let stored: StoredPersons;
  try {
    stored = storedPersonsSchema.parse(JSON.parse(body.toString('utf8')));
  } catch (error) {
    if (error instanceof SyntaxError || error instanceof z.ZodError) return undefined;
    throw error;
  }
  return stored.companyId === companyId ? stored : undefined;
}

async function readStored(file: string, companyId: string): Promise<StoredPersons | undefined> {
  const { store, key } = locate(file);
  return parseStored(await store.get(key), companyId);
}

/** Takes in what this and other workers learned before. */
export async function restoreLearnedPersons(
  file: string,
  companyId: string,
  persons: PersonDirectory,
): Promise<void> {
  const stored = await readStored(file, companyId);
  if (!stored) return;
  persons.restore({
    byEmail: new Map(Object.entries(stored.byEmail)),
    groups: new Map(Object.entries(stored.groups)),
  });
}

/** Applies `changes` to an ordered record: a changed key moves to the end, the oldest past `max` are dropped. */
function applied<T>(
  record: Readonly<Record<string, T>>,
  changes: ReadonlyMap<string, T | null>,
  keep: (key: string, value: T) => boolean,
  max: number,
): Record<string, T> {
  const entries = new Map(Object.entries(record));
  for (const [key, value] of changes) {
    entries.delete(key);
    if (value !== null && keep(key, value)) entries.set(key, value);
  }
  return Object.fromEntries([...entries].slice(Math.max(0, entries.size - max)));
}

const storableEmail = (email: string): boolean => email.length <= MAX_EMAIL_LENGTH && email.includes('@');

/** One store write at a time per document in this process: two batches' changes must not overwrite each other. */
const writing = new Map<string, Promise<unknown>>();

/** The stored document (as read, or empty) with `changes` applied; what is past the bounds goes, oldest first. */
function merged(current: Buffer | null, companyId: string, changes: PersonChanges): StoredPersons {
  const stored = parseStored(current, companyId);
  return {
    companyId,
    byEmail: applied(
      stored?.byEmail ?? {},
      changes.byEmail,
      (email, id) => storableEmail(email) && id.length <= MAX_ID_LENGTH,
      MAX_STORED_EMAILS,
    ),
    groups: applied(
      stored?.groups ?? {},
      changes.groups,
      (key, ids) =>
        ids.length <= MAX_GROUP_SIZE &&
        key.split('\n').every(storableEmail) &&
        ids.every((id) => id.length <= MAX_ID_LENGTH),
      MAX_STORED_GROUPS,
    ),
    storedAt: new Date().toISOString(),
  };
}

/**
 * Adds what the directory learned since the last call to the stored document, when it learned anything. Another
 * worker may store at the same moment: the write lands only over the document it merged into, else it reads that
 * worker's document and merges again (connectors/storage/merged-write.ts). When the other writers keep winning, what was learned stays
 * in the directory for its next store, and at worst costs one PATCH per order naming those people, never a wrong
 * comparison.
 */
export async function storeLearnedPersons(
  file: string,
  companyId: string,
  persons: PersonDirectory,
): Promise<void> {
  const changes: PersonChanges = persons.takeChanges();
  if (changes.byEmail.size === 0 && changes.groups.size === 0) return;
  const { store, key } = locate(file);
  const write = () =>
    mergeIntoStored(
      store,
      key,
      (current) => `${JSON.stringify(merged(current, companyId, changes), null, 2)}\n`,
    );
  const done = (writing.get(file) ?? Promise.resolve()).then(write, write);
  writing.set(file, done);
  try {
    if (!(await done)) persons.putBack(changes);
  } catch (error) {
    persons.putBack(changes);
    throw error;
  } finally {
    if (writing.get(file) === done) writing.delete(file);
  }
}
