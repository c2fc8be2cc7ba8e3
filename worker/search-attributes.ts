import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/** Which job a workflow belongs to (`check-connection`, `plm-import`...): filter on it in the Web UI. */
export const TraceJob = defineSearchAttributeKey('TraceJob', SearchAttributeType.KEYWORD);
/** Where the job's data comes from (a file name, `api`...). */
export const TraceSource = defineSearchAttributeKey('TraceSource', SearchAttributeType.KEYWORD);
/** The job's own status line (`running`, `done`, `done-with-rejects`...). */
export const TraceStatus = defineSearchAttributeKey('TraceStatus', SearchAttributeType.KEYWORD);

/** Custom search attributes the server must know; the dev server registers them at start, a worker checks them. */
export const SEARCH_ATTRIBUTES = [TraceJob, TraceSource, TraceStatus] as const;

export const CLI_TYPE_NAMES: Record<SearchAttributeType, string> = {
  [SearchAttributeType.TEXT]: 'Text',
  [SearchAttributeType.KEYWORD]: 'Keyword',
  [SearchAttributeType.INT]: 'Int',
  [SearchAttributeType.DOUBLE]: 'Double',
  [SearchAttributeType.BOOL]: 'Bool',
  [SearchAttributeType.DATETIME]: 'Datetime',
  [SearchAttributeType.KEYWORD_LIST]: 'KeywordList',
};

/** `Name=Type` pairs for `temporal server start-dev --search-attribute` and `temporal operator`. */
export function searchAttributeCliArgs(): string[] {
  return SEARCH_ATTRIBUTES.flatMap((key) => [
    '--search-attribute',
    `${key.name}=${CLI_TYPE_NAMES[key.type]}`,
  ]);
}
