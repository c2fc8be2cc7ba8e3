/**
 * Each job's one name: its CLI command, its TraceJob search attribute value, its workflow file and its activity and
 * connector folders. `workflow` is its workflow type (the same name in camelCase); `formerly` the type it was started
 * under before the jobs were renamed, which the worker still registers so existing schedules and runs keep working.
 */
export const JOBS = {
  'plm-import': { workflow: 'plmImport', formerly: 'importPlmSpreadsheet' },
  'erp-orders': { workflow: 'erpOrders', formerly: 'pushErpOrders' },
  'erp-pull': { workflow: 'erpPull', formerly: 'pullPlatformOrders' },
  'bom-repair': { workflow: 'bomRepair', formerly: 'repairBomForks' },
  'certificate-report': { workflow: 'certificateReport', formerly: 'certificateExpiryReport' },
  inbox: { workflow: 'inbox', formerly: 'processInbox' },
  'check-connection': { workflow: 'checkConnection', formerly: undefined },
} as const;
export type JobName = keyof typeof JOBS;
type Job = (typeof JOBS)[JobName];
export type WorkflowType = Job['workflow'] | Exclude<Job['formerly'], undefined>;

const JOB_OF_TYPE = new Map<string, JobName>(
  Object.entries(JOBS).flatMap(([name, job]) => [
    [job.workflow, name as JobName],
    ...(job.formerly ? [[job.formerly, name as JobName] as const] : []),
  ]),
);

/** The job a workflow type (today's or its former name) belongs to. */
export function jobOfWorkflowType(type: WorkflowType): JobName;
export function jobOfWorkflowType(type: string): JobName | undefined;
export function jobOfWorkflowType(type: string): JobName | undefined {
  return JOB_OF_TYPE.get(type);
}

/** Every workflow type the worker answers to: each job's name and its former one. */
export const WORKFLOW_TYPES = [...JOB_OF_TYPE.keys()] as [WorkflowType, ...WorkflowType[]];
