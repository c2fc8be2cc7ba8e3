import { bindColumns, type ColumnBinding, type MappingProfile } from '../profile';
import type { ExportTable } from '../read/types';
import { fail, ok, type Parsed } from '../cell-values';
import {
  describeAt,
  orderDraftSchema,
  rejectionOf,
  type LineDraft,
  type OrderDraft,
  type OrderRejection,
  type Problem,
} from './draft';
import {
  fieldNamed,
  PARTY_FIELDS,
  SCALAR_HEADER_FIELDS,
  type CompanyRef,
  type HeaderKey,
  type PartyKey,
} from './fields';
import { agreeOnHeader, managesField, rowList } from './header';
import { constantParty, missingParty, notOwnersRemedy, ownParty, partyWritten } from './parties';
import {
  resolveCompanyCode,
  resolveFacilityProcess,
  type CompanyResolver,
  type FacilityProcessList,
} from './lookups';
import type { OrderType } from '../../traceability/schemas/orders';
import { mapRow, type MappedRow, type RowContext } from './row';
import { decimalMarkOfDelimiter } from '../../number-text';
import { checkExportColumns } from './export-needs';
import { repeatsHeader, skippedRowsWarnings, TotalsRows, withoutTrailingNotes } from './skipped-rows';

/** The order type the server will compute from the parties; the caller's company must be one of them. */
export function orderTypeFor(
  ownCompanyId: string,
  buyerCompanyId: string,
  supplierCompanyId: string,
): Parsed<OrderType> {
  const isBuyer = buyerCompanyId === ownCompanyId;
  const isSupplier = supplierCompanyId === ownCompanyId;
  if (isBuyer && isSupplier) return ok('INTERNAL_ORDER');
  if (isBuyer) return ok('PURCHASE_ORDER');
  if (isSupplier) return ok('SALES_ORDER');
  return fail(
    `your company (${ownCompanyId}) is neither the buyer (${buyerCompanyId}) nor the supplier (${supplierCompanyId})`,
  );
}

/** What building orders needs besides the export: who the caller is and the reference lookups. */
export interface BuildContext {
  /** The company that owns the API key (it must be the buyer or the supplier of every order). */
  ownCompanyId: string;
  companies: CompanyResolver;
  facilityProcesses: FacilityProcessList;
  /** Every company id of the caller's network, when the export gives party ids: others are the API's 404. */
  knownCompanyIds?: ReadonlySet<string>;
  /** Company id → its code (else its name), for the companies the directory read (a plan names them so). */
  companyCodes?: ReadonlyMap<string, string>;
}

export interface BuildResult {
  drafts: OrderDraft[];
  rejections: OrderRejection[];
  /** Not errors: for example a mapped optional column the export does not have. */
  warnings: string[];
}

/**
 * Turns an export into order drafts: rows grouped by order number (in first-seen order; a row with a blank number
 * continues the order of the row above), header fields agreed,
 * values checked, companies and facility processes resolved. Every bad order becomes a rejection; the others go on.
 * A file that lacks a column every row needs is refused as a whole (`ExportMismatchError`).
 */
export function buildOrders(table: ExportTable, profile: MappingProfile, context: BuildContext): BuildResult {
  checkExportColumns(table, profile);
  const binding = bindColumns(profile, table.columns);
  const warnings = binding.missing.map(
    ({ field, column }) =>
      `column '${column}' (${field}) of profile '${profile.name}' is not in the export; the field is left as it is`,
  );
  const rowContext: RowContext = {
    ...(table.date1904 === true ? { date1904: true } : {}),
    decimalMark: decimalMarkOfDelimiter(table.csvDialect?.delimiter),
  };
  const groups = new Map<string, MappedRow[]>();
  const result: BuildResult = { drafts: [], rejections: [], warnings };
  /** The order number of the last row that has or continues one. */
  let above: string | undefined;
  const headerRows: number[] = [];
  const totalsRows: Array<{ row: number; of: readonly number[] }> = [];
  const totals = new TotalsRows(binding);
  const { rows, notes } = withoutTrailingNotes(table, binding);
  for (const source of rows) {
    if (repeatsHeader(source)) {
      headerRows.push(source.row);
      continue;
    }
    const mapped = mapRow(source, binding, profile, rowContext);
    const summed = totals.totals(source, mapped);
    if (summed !== undefined) {
      totalsRows.push({ row: mapped.row, of: summed });
      continue;
    }
    if (mapped.orderNumber === '') {
      // An unreadable row says nothing of its order: it is refused alone, as it cannot be told apart.
      if (source.problem !== undefined) {
        result.rejections.push(rejectionOf('', [mapped.row], mapped.problems));
        continue;
      }
      // Report-style exports print the number on an order's first row only: a blank number continues the order
      // of the row above, as blank parties do, so no order is pushed without some of its lines.
      if (above === undefined) {
        const column = binding.bound.orderNumber;
        const problem: Problem = {
          code: 'missing_value',
          field: 'orderNumber',
          row: mapped.row,
          ...(column === undefined ? {} : { column }),
          message:
            `${describeAt(mapped.row, column, 'orderNumber')}: the order number is empty and no row above gives ` +
            'one (a row without a number continues the order of the row above it)',
        };
        result.rejections.push(rejectionOf('', [mapped.row], [problem, ...mapped.problems]));
        continue;
      }
      mapped.orderNumber = above;
    }
    above = mapped.orderNumber;
    totals.add(source, mapped);
    const group = groups.get(mapped.orderNumber);
    if (group === undefined) groups.set(mapped.orderNumber, [mapped]);
    else group.push(mapped);
  }
  warnings.push(...skippedRowsWarnings(headerRows, notes, totalsRows));
  for (const [orderNumber, rows] of groups) {
    for (const typed of splitByOrderType(rows, profile, context)) {
      const built = buildOrder(orderNumber, typed, binding, profile, context);
      if ('problems' in built) result.rejections.push(built);
      else result.drafts.push(built);
    }
  }
  return result;
}

/** The order type one row's own parties give (its cells, else the profile's constants or own company). */
function rowOrderType(row: MappedRow, profile: MappingProfile, context: BuildContext): OrderType | undefined {
  const idOf = (key: 'buyerCompanyId' | 'supplierCompanyId'): string | undefined => {
    const party = PARTY_FIELDS.find((candidate) => candidate.key === key);
    if (party === undefined) return undefined;
    const ref =
      (row.header.get(key)?.value as CompanyRef | undefined) ??
      constantParty(profile, party.idField, party.codeField) ??
      ownParty(profile, key, context.ownCompanyId);
    if (ref === undefined) return undefined;
    if ('id' in ref) return ref.id;
    const resolved = resolveCompanyCode(context.companies, ref.code);
    return resolved.ok ? resolved.value : undefined;
  };
  const buyer = idOf('buyerCompanyId');
  const supplier = idOf('supplierCompanyId');
  if (buyer === undefined || supplier === undefined) return undefined;
  const type = orderTypeFor(context.ownCompanyId, buyer, supplier);
  return type.ok ? type.value : undefined;
}

/**
 * An order number is unique per owner company and order type (spec: "Unique within the owner company for the same
 * order type"), so one file may hold a purchase and a sales order with the same number: their rows go apart by the
 * type their parties give. Rows whose parties are blank belong to the order of the row above them. Only rows naming
 * parties of two different types split a number; otherwise the rows stay one order (and disagreeing parties are a
 * `header_conflict`).
 */
function splitByOrderType(
  rows: readonly MappedRow[],
  profile: MappingProfile,
  context: BuildContext,
): MappedRow[][] {
  const partiesGiven = (row: MappedRow): boolean =>
    row.header.has('buyerCompanyId') || row.header.has('supplierCompanyId');
  const types = rows.map((row) => (partiesGiven(row) ? rowOrderType(row, profile, context) : undefined));
  const distinct = new Set(types.filter((type): type is OrderType => type !== undefined));
  if (distinct.size < 2) return [[...rows]];
  const byType = new Map<OrderType, MappedRow[]>();
  let current = types.find((type): type is OrderType => type !== undefined);
  rows.forEach((row, index) => {
    current = types[index] ?? current;
    if (current === undefined) return;
    const typed = byType.get(current);
    if (typed === undefined) byType.set(current, [row]);
    else typed.push(row);
  });
  return [...byType.values()];
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
  problems.push(
    ...conflicts.map((problem) => ({ ...problem, message: `order '${orderNumber}', ${problem.message}` })),
  );
  const orderProblem: OrderProblem = (problem, onRows) => {
    const { reason, named, at, ...rest } = problem;
    const where = at ?? describeAt(undefined, problem.column, named ?? problem.field);
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
      else
        orderProblem(
          { code: spec.code, field: spec.key, column: `constant ${spec.key}`, reason: parsed.reason },
          rowNumbers,
        );
    } else if (binding.bound[spec.key] !== undefined) {
      draft[spec.key] = blankValue(spec.key);
    }
  }

  const parties = new Map<PartyKey, string>();
  for (const party of PARTY_FIELDS) {
    const cell = agreed.get(party.key);
    const ref =
      (cell?.value as CompanyRef | undefined) ??
      constantParty(profile, party.idField, party.codeField) ??
      ownParty(profile, party.key, context.ownCompanyId);
    if (ref === undefined) {
      // Blank but managed: vendor and factory are cleared, the receiver goes back to the server's default.
      if (
        party.key !== 'buyerCompanyId' &&
        party.key !== 'supplierCompanyId' &&
        managesField(binding, profile, party.idField, party.codeField)
      ) {
        draft[party.key] = null;
      }
      continue;
    }
    if ('id' in ref) {
      const known = context.knownCompanyIds;
      if (known !== undefined && ref.id !== context.ownCompanyId && !known.has(ref.id)) {
        const column = cell?.column ?? `constant ${party.idField}`;
        orderProblem(
          {
            code: 'invalid_company_id',
            field: party.key,
            named: party.idField,
            column,
            reason: `company id '${ref.id}' is not a company of your network`,
          },
          cell?.rows ?? rowNumbers,
        );
      } else parties.set(party.key, ref.id);
      continue;
    }
    const resolved = resolveCompanyCode(context.companies, ref.code);
    if (resolved.ok) parties.set(party.key, resolved.value);
    else {
      const column = cell?.column ?? `constant ${party.codeField}`;
      orderProblem(
        {
          code: 'unknown_company',
          field: party.key,
          named: party.codeField,
          column,
          reason: resolved.reason,
        },
        cell?.rows ?? rowNumbers,
      );
    }
  }
  for (const [key, id] of parties) draft[key] = id;
  for (const key of ['buyerCompanyId', 'supplierCompanyId'] as const) {
    if (draft[key] === undefined && !problems.some((problem) => problem.field === key))
      orderProblem(missingParty(key, binding, profile), rowNumbers);
  }

  for (const key of ['buyerFacilityProcess', 'supplierFacilityProcess', 'receiverFacilityProcess'] as const) {
    const value = draft[key];
    if (typeof value !== 'string') continue;
    const resolved = resolveFacilityProcess(context.facilityProcesses, value);
    if (resolved.ok) draft[key] = resolved.value;
    else {
      const cell = agreed.get(key);
      orderProblem(
        {
          code: 'unknown_facility_process',
          field: key,
          column: cell?.column ?? `constant ${key}`,
          reason: resolved.reason,
        },
        cell?.rows ?? rowNumbers,
      );
    }
  }
  checkReceiverPair(draft, agreed, binding, rowNumbers, orderProblem);

  const buyer = draft['buyerCompanyId'];
  const supplier = draft['supplierCompanyId'];
  if (typeof buyer === 'string' && typeof supplier === 'string') {
    const orderType = orderTypeFor(context.ownCompanyId, buyer, supplier);
    if (orderType.ok) draft['orderType'] = orderType.value;
    else
      orderProblem(
        {
          code: 'order_owner_not_party',
          field: 'buyerCompanyId',
          // The ids the check compares mean nothing to the operator: the export's columns and codes do.
          at: (['buyerCompanyId', 'supplierCompanyId'] as const)
            .map((key) => partyWritten(key, agreed.get(key), profile))
            .join(' and '),
          reason:
            'neither the buyer nor the supplier is your company (the one of the API key), and an order is pushed by ' +
            `its buyer or its supplier; ${notOwnersRemedy(profile, (key) => agreed.get(key), binding, context.ownCompanyId)}`,
        },
        rowNumbers,
      );
  }

  const lines = buildLines(rows, orderProblem);
  if (problems.length > 0) return rejectionOf(orderNumber, rowNumbers, problems);
  const parsed = orderDraftSchema.safeParse({ ...draft, lines });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path.join('.') ?? 'order';
    return rejectionOf(orderNumber, rowNumbers, [
      {
        code: 'invalid_value',
        field,
        message: `order '${orderNumber}', ${field}: ${issue?.message ?? 'invalid'}`,
      },
    ]);
  }
  return parsed.data;
}

function blankValue(key: HeaderKey): null | [] | undefined {
  if (key === 'tags' || key === 'internalResponsiblePersons') return [];
  // Status and sub-type are never cleared; a blank receiver process (null) means the server's default.
  if (key === 'status' || key === 'orderSubType') return undefined;
  return null;
}

/** `named`: what the message calls the field, when the operator wrote another name for it (see `fieldNamed`). */
type OrderProblem = (
  problem: Omit<Problem, 'message'> & { reason: string; named?: string; at?: string },
  onRows: readonly number[],
) => void;

function checkReceiverPair(
  draft: Assembled,
  agreed: ReturnType<typeof agreeOnHeader>['agreed'],
  binding: ColumnBinding,
  rows: readonly number[],
  report: OrderProblem,
): void {
  const hasCompany = typeof draft['receiverCompanyId'] === 'string';
  const hasProcess = typeof draft['receiverFacilityProcess'] === 'string';
  if (hasCompany === hasProcess) return;
  const given = hasCompany ? 'receiverCompanyId' : 'receiverFacilityProcess';
  const lacking = hasCompany ? 'receiverFacilityProcess' : 'receiverCompanyId';
  const cell = agreed.get(given);
  // Named as the export and the profile name them: the receiver company may come from a code column.
  const givenAt = cell ? `column '${cell.column}'` : `the constant ${fieldNamed(given)}`;
  const lackingColumn =
    lacking === 'receiverFacilityProcess'
      ? binding.bound.receiverFacilityProcess
      : (binding.bound.receiverCompanyCode ?? binding.bound.receiverCompanyId);
  const lackingName =
    lacking === 'receiverFacilityProcess' ? lacking : 'receiverCompanyCode or receiverCompanyId';
  report(
    {
      code: 'receiver_pair_incomplete',
      field: lacking,
      named: lackingName,
      ...(lackingColumn !== undefined ? { column: lackingColumn } : {}),
      reason:
        `${givenAt} gives the receiver ${hasCompany ? 'company' : 'facility process'} but ` +
        (lackingColumn !== undefined
          ? `column '${lackingColumn}' is blank`
          : `the export has no column for ${lackingName}`) +
        '; the receiver company and its facility process go together (both or neither)',
    },
    cell?.rows ?? rows,
  );
}

function buildLines(rows: readonly MappedRow[], report: OrderProblem): LineDraft[] {
  const lines: LineDraft[] = [];
  for (const row of rows) {
    const { line } = row;
    if (line.productRef === undefined || line.quantity === undefined || line.unit === undefined) continue;
    // No number in the export: the line is matched by its content, and a new one gets the server's number.
    const draft: LineDraft = {
      rows: [row.row],
      productRef: line.productRef,
      quantity: line.quantity,
      unit: line.unit,
    };
    if (line.orderLineNumber !== undefined) draft.orderLineNumber = line.orderLineNumber;
    if (line.lineId !== undefined) draft.lineId = line.lineId;
    if (line.secondaryQuantity !== undefined) draft.secondaryQuantity = line.secondaryQuantity;
    lines.push(draft);
  }
  reportDuplicates(
    lines,
    (line) => line.orderLineNumber,
    'orderLineNumber',
    'duplicate_line_number',
    'line number',
    report,
  );
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
    if (key === undefined) continue;
    const rows = rowsByKey.get(key);
    if (rows === undefined) rowsByKey.set(key, [...line.rows]);
    else rows.push(...line.rows);
  }
  for (const [key, rows] of rowsByKey) {
    if (rows.length > 1)
      report(
        {
          code,
          field,
          reason: `${label} '${key}' appears on ${rows.length} rows; it must be unique within the order`,
        },
        rows,
      );
  }
}
