import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Command, Help } from 'commander';
import { cliCommand } from '../connectors/cli-command';
import { shownText } from '../connectors/config-problems';

/**
 * One line per command for the top-level help, and how to build the command itself. A command's module (and the
 * Temporal client, fastify, SheetJS... it pulls in) is loaded only when that command runs, so `trace-sync --help`
 * and `--version` load commander alone.
 */
export interface LazyCommand {
  name: string;
  /** The command's name before each job had one name; still accepted. */
  formerly?: string;
  summary: string;
  load: () => Command;
}

/* eslint-disable @typescript-eslint/no-require-imports -- require() on demand is the point: a CommonJS build. */
export const COMMANDS: readonly LazyCommand[] = [
  {
    name: 'start',
    summary: 'Run the embedded stack (dev server, sandbox, worker) until Ctrl-C',
    load: () => (require('./commands/start') as typeof import('./commands/start')).startCommand(),
  },
  {
    name: 'worker',
    summary: 'Run a worker only, until SIGINT/SIGTERM',
    load: () => (require('./commands/start') as typeof import('./commands/start')).workerCommand(),
  },
  {
    name: 'sandbox',
    summary: 'Run the Traceability API sandbox alone',
    load: () => (require('./commands/sandbox') as typeof import('./commands/sandbox')).sandboxCommand(),
  },
  {
    name: 'check-connection',
    formerly: 'check',
    summary: 'Check that the workers reach the API with their key',
    load: () =>
      (
        require('./commands/check-connection') as typeof import('./commands/check-connection')
      ).checkConnectionCommand(),
  },
  {
    name: 'plm-import',
    formerly: 'import-plm',
    summary: 'Import a PLM spreadsheet into the catalogue',
    load: () =>
      (require('./commands/plm-import') as typeof import('./commands/plm-import')).plmImportCommand(),
  },
  {
    name: 'erp-orders',
    formerly: 'push-orders',
    summary: 'Push an ERP order export to the platform',
    load: () =>
      (require('./commands/erp-orders') as typeof import('./commands/erp-orders')).erpOrdersCommand(),
  },
  {
    name: 'erp-pull',
    formerly: 'pull-orders',
    summary: 'Export orders changed on the platform since the last pull',
    load: () => (require('./commands/erp-pull') as typeof import('./commands/erp-pull')).erpPullCommand(),
  },
  {
    name: 'retry',
    summary: "Run a finished run's rejects file again",
    load: () => (require('./commands/retry') as typeof import('./commands/retry')).retryCommand(),
  },
  {
    name: 'bom-repair',
    formerly: 'repair-bom',
    summary: 'Put back the component references BOM forks lost',
    load: () =>
      (require('./commands/bom-repair') as typeof import('./commands/bom-repair')).bomRepairCommand(),
  },
  {
    name: 'certificate-report',
    formerly: 'cert-report',
    summary: 'Start the certificate expiry report',
    load: () =>
      (
        require('./commands/certificate-report') as typeof import('./commands/certificate-report')
      ).certificateReportCommand(),
  },
  {
    name: 'inbox',
    summary: 'Start an inbox run now: a job run for each file dropped in a folder',
    load: () => (require('./commands/inbox') as typeof import('./commands/inbox')).inboxCommand(),
  },
  {
    name: 'watch',
    summary: "Follow a run's progress until it ends (runs started anywhere)",
    load: () => (require('./workflow-runner') as typeof import('./workflow-runner')).watchCommand(),
  },
  {
    name: 'approve',
    summary: 'Approve the plan of a run awaiting approval',
    load: () => (require('./commands/approve') as typeof import('./commands/approve')).approveCommand(),
  },
  {
    name: 'reject',
    summary: 'Reject the plan of a run awaiting approval (nothing is written)',
    load: () => (require('./commands/approve') as typeof import('./commands/approve')).rejectCommand(),
  },
  {
    name: 'cancel',
    summary: 'Cancel a running run: its batch stops before its next write',
    load: () => (require('./commands/cancel') as typeof import('./commands/cancel')).cancelCommand(),
  },
  {
    name: 'schedules',
    summary: "Manage the jobs' Temporal Schedules from one JSON file",
    load: () => (require('./commands/schedules') as typeof import('./commands/schedules')).schedulesCommand(),
  },
  {
    name: 'temporal-provision',
    summary: 'Find or install the Temporal CLI and print its path',
    load: () => (require('./commands/start') as typeof import('./commands/start')).temporalProvisionCommand(),
  },
];
/* eslint-enable @typescript-eslint/no-require-imports */

/** The version of package.json (dist/cli/ and cli/ both sit below the root). */
export function packageVersion(): string {
  for (const up of ['..', path.join('..', '..')]) {
    try {
      const parsed: unknown = JSON.parse(readFileSync(path.join(__dirname, up, 'package.json'), 'utf8'));
      if (parsed && typeof parsed === 'object' && 'version' in parsed && typeof parsed.version === 'string')
        return parsed.version;
    } catch {
      // not this folder
    }
  }
  return '0.0.0';
}

/** The program with every command listed; `only` (the command being run) is built for real, the others stay stubs. */
export function buildProgram(only?: string): Command {
  const program = new Command('trace-sync')
    .description(
      'Trace Connectors: Temporal jobs that keep PLM and ERP data in sync with the Traceability API',
    )
    .version(packageVersion(), '-V, --version', 'print the version');
  for (const entry of COMMANDS) {
    const command = entry.name === only ? entry.load() : new Command(entry.name).summary(entry.summary);
    if (entry.formerly) command.alias(entry.formerly);
    program.addCommand(command);
  }
  withUsageErrorLines(program);
  withCliCommandUsage(program);
  return program;
}

/**
 * Every --help's `Usage:` line as cliCommand types it (`npx trace-sync erp-orders [options] <file>`): commander names
 * the program by its name, a bare `trace-sync`, which a fresh clone does not find.
 */
function withCliCommandUsage(command: Command): void {
  const commander = new Help();
  command.configureHelp({
    commandUsage: (cmd) => cliCommand(...commander.commandUsage(cmd).split(' ').slice(1)),
  });
  for (const sub of command.commands) withCliCommandUsage(sub);
}

/** The command line that shows a command's help: `trace-sync schedules apply --help`. */
function helpLine(command: Command): string {
  const names: string[] = [];
  for (let at: Command | null = command; at; at = at.parent) names.unshift(at.name());
  return `${names.join(' ')} --help`;
}

/**
 * commander's wording of a usage error as one `trace-sync: …` line, like every other error the CLI prints: what is
 * wrong, then what it concerns (`no file at /x/nope.csv (argument file)`); an error in the command line's shape
 * (unknown command or option, missing argument) also names the help to read.
 */
export function usageErrorLine(commanderText: string, help: string): string {
  // commander puts its suggestion on a line of its own: `unknown option '--wiat'\n(Did you mean --wait?)`.
  const text = commanderText
    .trim()
    .replace(/^error: /, '')
    .replace(/\s*\(Did you mean ([^)]*)\?\)$/, ', did you mean $1?');
  const invalid =
    /^(?:command-argument value '(.*)' is invalid for argument '([^']+)'|option '(\S+)[^']*' (?:argument|value) '(.*)' (?:from env '([^']+)' )?is invalid)\. (.*)$/s.exec(
      text,
    );
  if (invalid) {
    const [, argValue, argName, flag, optionValue, envName, reason = ''] = invalid;
    const value = argValue ?? optionValue ?? '';
    const what =
      argName !== undefined ? `argument ${argName}` : `option ${flag}${envName ? ` from ${envName}` : ''}`;
    // A value that reads as a credential (`s3://id:secret@bucket/key`) is not repeated.
    const unrepeated = reason.includes(value) || shownText(value) === undefined;
    return `trace-sync: ${unrepeated ? '' : `'${value}': `}${reason} (${what})`;
  }
  return `trace-sync: ${text} (${help === 'trace-sync --help' ? `run ${cliCommand('--help')} for the commands` : `see ${cliCommand(...help.split(' ').slice(1))}`})`;
}

/** Every usage error of the command and its subcommands printed as usageErrorLine (the exit code stays commander's 1). */
function withUsageErrorLines(command: Command): void {
  command.configureOutput({
    outputError: (text, write) => write(`${usageErrorLine(text, helpLine(command))}\n`),
  });
  for (const sub of command.commands) withUsageErrorLines(sub);
}

/** The command an argument names, by its name or its former name. */
function commandNamed(arg: string | undefined): LazyCommand | undefined {
  return COMMANDS.find((c) => c.name === arg || c.formerly === arg);
}

export async function main(argv: string[]): Promise<void> {
  // `trace-sync help plm-import` is `trace-sync plm-import --help`.
  const args = argv[2] === 'help' && argv[3] !== undefined ? [...argv.slice(0, 2), argv[3], '--help'] : argv;
  const first = args[2];
  const program = buildProgram(commandNamed(first)?.name);
  // Bare `trace-sync` (and `trace-sync help`) is a request for help, not an error.
  if (first === undefined || first === 'help') {
    process.stdout.write(program.helpInformation());
    return;
  }
  await program.parseAsync(args);
}

if (require.main === module) void main(process.argv);
