import { z } from 'zod';
import { listSome, quoteInput } from '../../input-limits';
import {
  AnswerMemo,
  didYouMean,
  NameMatcher,
  normalizeName,
  ReferenceIndex,
} from '../../traceability/name-matching';

export const referenceEntrySchema = z.object({
  id: z.string().min(1),
  name: z.string(),
  /** Style types only: their style level. */
  parentId: z.string().nullish(),
});

/**
 * Id/name pairs read from the API (style types, style properties by category). A list left out is not
 * resolved: the cell text is taken as the id as it stands.
 */
export const referenceListsSchema = z.object({
  styleTypes: z.array(referenceEntrySchema).optional(),
  brands: z.array(referenceEntrySchema).optional(),
  seasons: z.array(referenceEntrySchema).optional(),
  collections: z.array(referenceEntrySchema).optional(),
  departments: z.array(referenceEntrySchema).optional(),
});
export type ReferenceLists = z.infer<typeof referenceListsSchema>;
export type ReferenceKind = keyof ReferenceLists;

export const referenceLabels: Record<ReferenceKind, string> = {
  styleTypes: 'style type',
  brands: 'brand',
  seasons: 'season',
  collections: 'collection',
  departments: 'department',
};

export type Resolution = { ok: true; id: string } | { ok: false; reason: string };
export type ReferenceResolution =
  { ok: true; id: string } | { ok: false; code: 'unknown_reference' | 'ambiguous_reference'; reason: string };

/**
 * Looks names up by id or by normalized name (case, accents and spacing ignored), through the client's shared
 * ReferenceIndex. Spec 01, convention 8: reference values "are identifiers, never display names", and style types
 * form a tree, so one name can belong to several ids: such a name is refused, never resolved to one of them.
 */
export class ReferenceResolver {
  private readonly indexes = new Map<
    ReferenceKind,
    { index: ReferenceIndex; names: string[]; matcher: NameMatcher }
  >();
  /** One run's failed lookups: an unknown name repeated on many rows is matched against the list once. */
  private readonly failures = new AnswerMemo<ReferenceResolution>();
  private levels?: { list: string[]; matcher: NameMatcher };

  constructor(private readonly lists: ReferenceLists) {
    for (const kind of Object.keys(referenceLabels) as ReferenceKind[]) {
      const entries = lists[kind];
      if (!entries) continue;
      const names = entries.map((entry) => entry.name);
      this.indexes.set(kind, { index: new ReferenceIndex(entries), names, matcher: new NameMatcher(names) });
    }
  }

  /**
   * Spec 01, styleLevelId: "the valid set is the set of `parentId` values returned by the style-types list" (and
   * "An unrecognised value is rejected with 400"), so it is checked here, before the style is created. Without the
   * style-types list the text is taken as it stands.
   */
  styleLevel(text: string): ReferenceResolution {
    const types = this.lists.styleTypes;
    if (!types) return { ok: true, id: text };
    if (!this.levels) {
      const list = [...new Set(types.flatMap((type) => (type.parentId ? [type.parentId] : [])))].sort();
      this.levels = { list, matcher: new NameMatcher(list) };
    }
    const levels = this.levels;
    if (levels.list.includes(text)) return { ok: true, id: text };
    return this.failures.get(`level:${text}`, () => ({
      ok: false,
      code: 'unknown_reference',
      reason: `unknown style level '${text}' (a style level is the parentId of a style type)${didYouMean(levels.matcher.closeMatches(text), levels.list)}`,
    }));
  }

  resolve(kind: ReferenceKind, text: string): ReferenceResolution {
    const reference = this.indexes.get(kind);
    if (!reference) return { ok: true, id: text };
    const found = reference.index.resolve(text, false);
    if (found.ok) return { ok: true, id: found.id };
    const label = referenceLabels[kind];
    if (found.reason === 'ambiguous') {
      const candidates = listSome(found.suggestions.map((entry) => `'${quoteInput(entry.id, 60)}'`));
      return {
        ok: false,
        code: 'ambiguous_reference',
        reason: `${label} '${text}' is ambiguous: ${found.suggestions.length} ${label}s are named so (ids ${candidates}); give the id of the one you mean instead of the name`,
      };
    }
    return this.failures.get(`${kind}:${text}`, () => ({
      ok: false,
      code: 'unknown_reference',
      reason: `unknown ${label} '${text}'${didYouMean(reference.matcher.closeMatches(text), reference.names)}`,
    }));
  }
}

/** Raw-material ids by the names a mapping's `rawMaterials` table gives (an id itself is accepted too). */
export class RawMaterialResolver {
  private readonly byName = new Map<string, string>();
  private readonly ids = new Set<string>();
  private readonly names: string[];
  private readonly matcher: NameMatcher;
  private readonly failures = new AnswerMemo<Resolution>();

  constructor(private readonly table: Readonly<Record<string, string>>) {
    for (const [name, id] of Object.entries(table)) {
      this.byName.set(normalizeName(name), id);
      this.ids.add(id);
    }
    this.names = Object.keys(table);
    this.matcher = new NameMatcher(this.names);
  }

  /** No table: compositions are checked but cannot be written (there is no raw-material list to look names up in). */
  get empty(): boolean {
    return this.ids.size === 0;
  }

  resolve(material: string): Resolution {
    const id = this.byName.get(normalizeName(material)) ?? (this.ids.has(material) ? material : undefined);
    if (id !== undefined) return { ok: true, id };
    const names = this.names;
    if (names.length === 0)
      return {
        ok: false,
        reason: `material '${material}' has no raw-material id: add a rawMaterials table to the mapping ("${material}": "<rawMaterialId>")`,
      };
    return this.failures.get(material, () => ({
      ok: false,
      reason: `unknown material '${material}'${didYouMean(this.matcher.closeMatches(material), names)} (names come from the mapping's rawMaterials table)`,
    }));
  }
}
