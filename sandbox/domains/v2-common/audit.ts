import type { Caller, SandboxContext } from '../../core/context';

/** The six audit fields of BOM and material records. */
export interface ShortAudit {
  createdAt: string;
  createdByUserId: string | null;
  createdByCompanyId: string;
  updatedAt: string;
  updatedByUserId: string | null;
  updatedByCompanyId: string;
}

export function createdAudit(ctx: SandboxContext, caller: Caller, companyId: string): ShortAudit {
  const at = ctx.nowIso();
  return {
    createdAt: at,
    createdByUserId: caller.userId,
    createdByCompanyId: companyId,
    updatedAt: at,
    updatedByUserId: caller.userId,
    updatedByCompanyId: companyId,
  };
}

/** The six audit fields as BOM and material responses show them. */
export function shortAuditOf(record: ShortAudit): ShortAudit {
  return {
    createdAt: record.createdAt,
    createdByUserId: record.createdByUserId,
    createdByCompanyId: record.createdByCompanyId,
    updatedAt: record.updatedAt,
    updatedByUserId: record.updatedByUserId,
    updatedByCompanyId: record.updatedByCompanyId,
  };
}

export function touchAudit<T extends ShortAudit>(
  ctx: SandboxContext,
  caller: Caller,
  companyId: string,
  record: T,
): void {
  record.updatedAt = ctx.nowIso();
  record.updatedByUserId = caller.userId;
  record.updatedByCompanyId = companyId;
}

/** One side (`created` or `updated`) of the 16 audit fields of orders and order lines. */
export interface AuditSide {
  UserId: string | null;
  UserName: string | null;
  CompanyId: string | null;
  CompanyName: string | null;
  ImpersonateId: string | null;
  ImpersonateName: string | null;
  ApiKeyId: string | null;
  ApiKeyLabel: string | null;
}

/** Key-made writes fill the ApiKey pair and leave the User pair null; bearer (user) writes do the reverse. */
export function auditSide(ctx: SandboxContext, caller: Caller): AuditSide {
  const user = caller.userId ? ctx.users.get(caller.userId) : undefined;
  const company = caller.companyId ? ctx.companies.get(caller.companyId) : undefined;
  return {
    UserId: user?.id ?? null,
    UserName: user?.name ?? null,
    CompanyId: caller.companyId,
    CompanyName: company?.name ?? null,
    ImpersonateId: null,
    ImpersonateName: null,
    ApiKeyId: caller.apiKeyId,
    ApiKeyLabel: caller.apiKeyLabel,
  };
}

export function flattenAudit(prefix: 'created' | 'updated', side: AuditSide): Record<string, string | null> {
  const out: Record<string, string | null> = {};
  for (const [key, value] of Object.entries(side)) out[`${prefix}By${key}`] = value;
  return out;
}
