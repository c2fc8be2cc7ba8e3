import type { Transport } from '../http';
import {
  materialHeaderCreateSchema,
  materialHeaderListQuerySchema,
  materialHeaderSchema,
  materialHeadersDeleteSchema,
  materialHeaderUpdateSchema,
  materialLineListQuerySchema,
  materialLineSchema,
  materialLinesDeleteSchema,
  materialLineWriteSchema,
  type MaterialHeader,
  type MaterialHeaderCreate,
  type MaterialHeaderListQuery,
  type MaterialHeaderUpdate,
  type MaterialLine,
  type MaterialLineListQuery,
  type MaterialLineWrite,
} from '../schemas/materials';
import { LinkedHeaderResource, type LinkedHeaderSpec } from './base';

type MaterialTypes = {
  header: MaterialHeader;
  headerListQuery: MaterialHeaderListQuery;
  headerCreate: MaterialHeaderCreate;
  headerUpdate: MaterialHeaderUpdate;
  headersDelete: { styleId: string; materialHeaderIds: string[] };
  line: MaterialLine;
  lineListQuery: MaterialLineListQuery;
  lineCreate: MaterialLineWrite;
  lineReplace: MaterialLineWrite;
  linesDelete: { styleId: string; materialLineIds: string[] };
};

const materialsSpec: LinkedHeaderSpec<MaterialTypes> = {
  kind: 'material',
  header: materialHeaderSchema,
  headerListQuery: materialHeaderListQuerySchema,
  headerCreate: materialHeaderCreateSchema,
  headerUpdate: materialHeaderUpdateSchema,
  headersDelete: materialHeadersDeleteSchema,
  line: materialLineSchema,
  lineListQuery: materialLineListQuerySchema,
  lineCreate: materialLineWriteSchema,
  // Full replace: send the complete line including its current `parentId`.
  lineReplace: materialLineWriteSchema,
  linesDelete: materialLinesDeleteSchema,
  // Through an inherited link every header update adds another empty header copy: not retried blindly.
  updateHeaderSafety: 'unsafe',
  // Deleting lines cascades one level only (delete deep trees bottom-up) and forks through an inherited link.
  deleteLinesSafety: 'unsafe',
};

/**
 * Material compositions. Writes through an inherited link fork the composition (new ids), so ids
 * are never cached across writes; the answer of a write carries the ids that now apply.
 */
export class MaterialsResource extends LinkedHeaderResource<MaterialTypes> {
  constructor(transport: Transport) {
    super(transport, materialsSpec);
  }
}
