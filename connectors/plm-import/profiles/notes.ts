import { loneText, TrailingNotes, type NoteRow } from '../../trailing-notes';
import type { SheetRow } from '../read/sheet';
import type { SheetSource } from './map-rows';

/** The text of a row holding one text cell and nothing else (a note's shape), else null. */
function noteText(row: SheetRow): string | null {
  if (Object.keys(row.cellErrors ?? {}).length > 0) return null;
  return loneText(Object.values(row.cells));
}

/** The sheet without the notes an export ends with (`TrailingNotes`); they go to `notes` once the sheet is read. */
export function withoutTrailingNotes(source: SheetSource, notes: NoteRow[]): SheetSource {
  return {
    ...source,
    async *rows() {
      const trailing = new TrailingNotes<SheetRow>((row) => row.rowNumber, noteText);
      for await (const row of source.rows()) yield* trailing.take(row);
      notes.push(...trailing.end());
    },
  };
}
