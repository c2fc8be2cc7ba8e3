import { bindColumns, missingRequiredColumns, type ColumnBinding, type MappingProfile } from '../profile';
import type { ExportTable } from '../read/types';
import { describeAt, orderDraftSchema, rejectionOf, type LineDraft, type OrderDraft, type OrderRejection, type Problem } from './draft';
import { PARTY_FIELDS, SCALAR_HEADER_FIELDS, type CompanyRef, type HeaderKey, type PartyKey } from './fields';
import { agreeOnHeader, managesField, rowList } from './header';
import { resolveCompanyCode, resolveFacilityProcess, type CompanyResolver, type FacilityProcessList } from './lookups';
import { generatedLineNumber, orderTypeFor } from './order-type';
import { mapRow, type MappedRow } from './row';

/** What building orders needs besides the export: who the caller is and the reference lookups. */
export interface BuildContext {
  /** The company that owns the API key (it must be the buyer or the supplier of every order). */
  ownCompanyId: string;
  companies: CompanyResolver;
  facilityProcesses: FacilityProcessList;
}

export interface BuildResult {
  drafts: OrderDraft[];
  rejections: OrderRejection[];
  /** Not errors: for example a mapped optional column the export does not have. */
  warnings: string[];
}

export class ExportMismatchError extends Error {
  override readonly name = 'ExportMismatchError';
}

/** Company codes worth looking up before building (the activity resolves them in one pass, then builds). */
export function companyCodesIn(table: ExportTable, profile: MappingProfile): string[] {
  const binding = bindColumns(profile, table.columns);
  const codes = new Set<string>();
  for (const party of PARTY_FIELDS) {
    const constant = profile.constants[party.codeField];
    if (constant !== undefined && constant.trim() !== '') codes.add(constant.trim());
    const column = binding.bound[party.codeField];
    if (column === undefined) continue;
    for (const row of table.rows) {
      const value = row.values[column];
      const text = value === null || value === undefined ? '' : String(value).trim();
      if (text !== '') codes.add(text);
    }
  }
  return [...codes].sort();
}

/**
 * Turns an export into order drafts: rows grouped by order number (in first-seen order), header fields agreed,
 * values checked, companies and facility processes resolved. Every bad order becomes a rejection; the others go on.
 * A file that lacks a column every row needs is refused as a whole (`ExportMismatchError`).
 */
export function buildOrders(table: ExportTable, profile: MappingProfile, context: BuildContext): BuildResult {
  const binding = bindColumns(profile, table.columns);
  const missing = missingRequiredColumns(profile, binding);
  if (missing.length > 0) {
    if (table.rows.length === 0 && table.columns.length === 0) {
      throw new ExportMismatchError(`the file has no rows: there is no order line to read (profile '${profile.name}')`);
    }
    if (table.columns.length === 0) {
      const first = table.rows.find((row) => row.problem !== undefined);
      throw new ExportMismatchError(
        `none of the file's ${table.rows.length} rows could be read` +
          (first ? ` (row ${first.row}: ${first.problem})` : '') +
          `; the export has no columns, so it lacks ${missing.join(', ')} required by profile '${profile.name}'`,
      );
    }
    throw new ExportMismatchError(
      `the export lacks ${missing.join(', ')} required by profile '${profile.name}'; its columns are: ${table.columns.join(', ')}`,
    );
  }
  const warnings = binding.missing.map(
    ({ field, column }) => `column '${column}' (${field}) of profile '${profile.name}' is not in the export; the field is left as it is`,
  );
  const groups = new Map<string, MappedRow[]>();
  const result: BuildResult = { drafts: [], rejections: [], warnings };
  for (const source of table.rows) {
    const mapped = mapRow(source, binding, profile);
    if (mapped.orderNumber === '') {
      result.rejections.push(rejectionOf('', [mapped.row], mapped.problems));
      continue;
    }
    groups.set(mapped.orderNumber, [...(groups.get(mapped.orderNumber) ?? []), mapped]);
  }
  for (const [orderNumber, rows] of groups) {
    const built = buildOrder(orderNumber, rows, binding, profile, context);
    if ('problems' in built) result.rejections.push(built);
    else result.drafts.push(built);
  }
  return result;
}

type Assembled = Record<string, unknown>;

function buildOrder(
  orderNumber: string,
  rows: readonly MappedRow[],
  binding: ColumnBinding,
  profile: MappingProfile,
  context: BuildContext,
): OrderDraft | OrderRejection {
  const rowNumbers = rows.map((row) => row.row);
  const problems: Problem[] = rows.flatMap((row) => row.problems);
  const { agreed, problems: conflicts } = agreeOnHeader(rows);
  problems.push(...conflicts.map((problem) => ({ ...problem, message: `order '${orderNumber}', ${problem.message}` })));
  const orderProblem = (problem: Omit<Problem, 'message'> & { reason: string }, onRows: readonly number[]): void => {
    const { reason, ...rest } = problem;
    const where = describeAt(undefined, problem.column, problem.field);
    problems.push({ ...rest, message: `order '${orderNumber}' (${rowList(onRows)}), ${where}: ${reason}` });
  };

  const draft: Assembled = { orderNumber, rows: [...rowNumbers].sort((a, b) => a - b) };
  for (const spec of SCALAR_HEADER_FIELDS) {
    const cell = agreed.get(spec.key);
    if (cell) {
      draft[spec.key] = cell.value;
      continue;
    }
    const constant = profile.constants[spec.key];
    if (constant !== undefined) {
      const parsed = spec.parse(constant, profile);
      if (parsed.ok) draft[spec.key] = parsed.value;
      else orderProblem({ code: spec.code, field: spec.key, column: `constant ${spec.key}`, reason: parsed.reason }, rowNumbers);
    } else if (binding.bound[spec.key] !== undefined) {
      draft[spec.key] = blankValue(spec.key);
    }
  }

  const parties = new Map<PartyKey, string>();
  for (const party of PARTY_FIELDS) {
    const cell = agreed.get(party.key);
    const ref = (cell?.value as CompanyRef | undefined) ?? constantParty(profile, party.idField, party.codeField) ?? ownParty(profile, party.key, context);
    if (ref === undefined) {
      if ((party.key === 'vendorCompanyId' || party.key === 'factory') && managesField(binding, profile, party.idField, party.codeField)) {
        draft[party.key] = null;
      }
      continue;
    }
    if ('id' in ref) {
      parties.set(party.key, ref.id);
      continue;
    }
    const resolved = resolveCompanyCode(context.companies, ref.code);
    if (resolved.ok) parties.set(party.key, resolved.value);
    else {
      const column = cell?.column ?? `constant ${party.codeField}`;
      orderProblem({ code: 'unknown_company', field: party.key, column, reason: resolved.reason }, cell?.rows ?? rowNumbers);
    }
  }
  for (const [key, id] of parties) draft[key] = id;
  for (const key of ['buyerCompanyId', 'supplierCompanyId'] as const) {
    if (draft[key] === undefined && !problems.some((problem) => problem.field === key)) {
      orderProblem({ code: 'missing_value', field: key, reason: `the order has no ${key === 'buyerCompanyId' ? 'buyer' : 'supplier'}` }, rowNumbers);
    }
  }

  for (const key of ['buyerFacilityProcess', 'supplierFacilityProcess', 'receiverFacilityProcess'] as const) {
    const value = draft[key];
    if (typeof value !== 'string') continue;
    const resolved = resolveFacilityProcess(context.facilityProcesses, value);
    if (resolved.ok) draft[key] = resolved.value;
    else {
      const cell = agreed.get(key);
      orderProblem({ code: 'unknown_facility_process', field: key, column: cell?.column ?? `constant ${key}`, reason: resolved.reason }, cell?.rows ?? rowNumbers);
    }
  }
  checkReceiverPair(draft, agreed, rowNumbers, orderProblem);

  const buyer = draft['buyerCompanyId'];
  const supplier = draft['supplierCompanyId'];
  if (typeof buyer === 'string' && typeof supplier === 'string') {
    const orderType = orderTypeFor(context.ownCompanyId, buyer, supplier);
    if (orderType.ok) draft['orderType'] = orderType.value;
    else orderProblem({ code: 'order_owner_not_party', field: 'buyerCompanyId', reason: orderType.reason }, rowNumbers);
  }

  const lines = buildLines(orderNumber, rows, draft['orderType'] as OrderDraft['orderType'] | undefined, orderProblem);
  if (problems.length > 0) return rejectionOf(orderNumber, rowNumbers, problems);
  const parsed = orderDraftSchema.safeParse({ ...draft, lines });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path.join('.') ?? 'order';
    return rejectionOf(orderNumber, rowNumbers, [
      { code: 'invalid_value', field, message: `order '${orderNumber}', ${field}: ${issue?.message ?? 'invalid'}` },
    ]);
  }
  return parsed.data;
}

function blankValue(key: HeaderKey): null | [] | undefined {
  if (key === 'tags' || key === 'internalResponsiblePersons') return [];
  // Status and sub-type are never cleared, and an omitted receiver process means the server's default.
  if (key === 'status' || key === 'orderSubType' || key === 'receiverFacilityProcess') return undefined;
  return null;
}

function constantParty(profile: MappingProfile, idField: keyof MappingProfile['constants'], codeField: keyof MappingProfile['constants']): CompanyRef | undefined {
  const id = profile.constants[idField]?.trim();
  if (id) return { id };
  const code = profile.constants[codeField]?.trim();
  return code ? { code } : undefined;
}

function ownParty(profile: MappingProfile, key: PartyKey, context: BuildContext): CompanyRef | undefined {
  const own = profile.ownCompanyAs === 'buyer' ? 'buyerCompanyId' : profile.ownCompanyAs === 'supplier' ? 'supplierCompanyId' : undefined;
  return own === key ? { id: context.ownCompanyId } : undefined;
}

type OrderProblem = (problem: Omit<Problem, 'message'> & { reason: string }, onRows: readonly number[]) => void;

function checkReceiverPair(draft: Assembled, agreed: ReturnType<typeof agreeOnHeader>['agreed'], rows: readonly number[], report: OrderProblem): void {
  const hasCompany = draft['receiverCompanyId'] !== undefined;
  const hasProcess = draft['receiverFacilityProcess'] !== undefined;
  if (hasCompany === hasProcess) return;
  const given = hasCompany ? 'receiverCompanyId' : 'receiverFacilityProcess';
  const lacking = hasCompany ? 'receiverFacilityProcess' : 'receiverCompanyId';
  const cell = agreed.get(given);
  report(
    {
      code: 'receiver_pair_incomplete',
      field: lacking,
      reason: `${given} is given but ${lacking} is not; the receiver company and its facility process go together (both or neither)`,
    },
    cell?.rows ?? rows,
  );
}

function buildLines(orderNumber: string, rows: readonly MappedRow[], orderType: OrderDraft['orderType'] | undefined, report: OrderProblem): LineDraft[] {
  const lines: LineDraft[] = [];
  rows.forEach((row, index) => {
    const { line } = row;
    if (line.productRef === undefined || line.quantity === undefined || line.unit === undefined) return;
    const orderLineNumber = line.orderLineNumber ?? (orderType ? generatedLineNumber(orderNumber, orderType, index + 1) : undefined);
    if (orderLineNumber === undefined) return;
    const draft: LineDraft = { rows: [row.row], orderLineNumber, productRef: line.productRef, quantity: line.quantity, unit: line.unit };
    if (line.lineId !== undefined) draft.lineId = line.lineId;
    if (line.secondaryQuantity !== undefined) draft.secondaryQuantity = line.secondaryQuantity;
    lines.push(draft);
  });
  reportDuplicates(lines, (line) => line.orderLineNumber, 'orderLineNumber', 'duplicate_line_number', 'line number', report);
  reportDuplicates(lines, (line) => line.lineId, 'lineId', 'duplicate_line_id', 'line id', report);
  return lines;
}

function reportDuplicates(
  lines: readonly LineDraft[],
  keyOf: (line: LineDraft) => string | undefined,
  field: string,
  code: 'duplicate_line_number' | 'duplicate_line_id',
  label: string,
  report: OrderProblem,
): void {
  const rowsByKey = new Map<string, number[]>();
  for (const line of lines) {
    const key = keyOf(line);
    if (key !== undefined) rowsByKey.set(key, [...(rowsByKey.get(key) ?? []), ...line.rows]);
  }
  for (const [key, rows] of rowsByKey) {
    if (rows.length > 1) report({ code, field, reason: `${label} '${key}' appears on ${rows.length} rows; it must be unique within the order` }, rows);
  }
}

