import { writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { WorkflowFailedError } from '@temporalio/client';
import { bomRepair, certificateReport, erpOrders, erpPull, inbox, plmImport } from '../../workflows';
import type { CertificateReportResult } from '../../activities/certificate-report';
import { cliEnv, cliProblems, readHarnessInfo, traceSync, waitResult, type TestStack } from '../harness';
import { startJobStack } from './job-stack';

/** A TCP relay to the dev server that counts the connections made through it. */
async function countingRelay(
  target: string,
): Promise<{ address: string; connections: () => number; close: () => Promise<void> }> {
  const [host, port] = [
    target.slice(0, target.lastIndexOf(':')),
    Number(target.slice(target.lastIndexOf(':') + 1)),
  ];
  let connections = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((inbound) => {
    connections++;
    const outbound = net.connect(port, host);
    for (const socket of [inbound, outbound]) {
      sockets.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => sockets.delete(socket));
    }
    inbound.pipe(outbound).pipe(inbound);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port: relayPort } = server.address() as net.AddressInfo;
  return {
    address: `127.0.0.1:${relayPort}`,
    connections: () => connections,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/**
 * The plain JSON an operator types (the Web UI's input box, a schedules file) is checked where it is given: a key
 * or value the job would not take is named then, not dropped or found out at 2 a.m.
 */
describe('job inputs typed by hand: refused where they are given, naming the field', () => {
  let stack: TestStack;
  let dir: string;

  beforeAll(async () => {
    ({ dir, stack } = await startJobStack('job-inputs-'));
  }, 60_000);

  afterAll(async () => {
    await stack?.stop();
  });

  // The other jobs' inputs refuse keys they do not know; the report took `{"asof": …, "thresholds": […]}` as `{}`
  // and reported today, in UTC, with the default ranges, as a success.
  it('a certificate report input with keys it does not know fails at once, naming them', async () => {
    const handle = await stack.client.workflow.start(certificateReport, {
      args: [{ asof: '2026-11-01', timeZone: 'Europe/Stockholm', thresholds: [7, 14] } as never],
      taskQueue: stack.taskQueue,
      workflowId: stack.workflowId('cert-typo'),
    });
    const failure = await handle.result().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(WorkflowFailedError);
    const message = String((failure as WorkflowFailedError).cause?.message);
    expect(message).toContain('Invalid certificate report input');
    expect(message).toContain('asof');
    expect(message).toContain('thresholds');
  });

  /** Starts `workflow` with `input` as the Web UI would (plain JSON) and returns the message its failure reads. */
  const failureMessage = async (workflow: (...args: never[]) => Promise<unknown>, input: unknown) => {
    const failure = await stack.client.workflow
      .execute(workflow as never, {
        args: [input] as never,
        taskQueue: stack.taskQueue,
        workflowId: stack.workflowId('bad-input'),
      })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(failure).toBeInstanceOf(WorkflowFailedError);
    return String((failure as WorkflowFailedError).cause?.message);
  };

  // A bad input read in zod's words ("Invalid input: expected string, received undefined", "Unrecognized key") and
  // did not say which key was meant; now each field says what was given, what is allowed, and "did you mean".
  it('a misspelt key, a wrong type or an unknown value reads as the field, what was given and what it takes', async () => {
    expect(
      await failureMessage(plmImport, { fiel: '/data/inbox/plm/ss25.xlsx', dryrun: true, profile: 'Flat' }),
    ).toBe(
      'Invalid plmImport input: file: missing (expected text); profile: "Flat" is not one of native, flat ' +
        '(did you mean "flat"?); unknown key "fiel" (did you mean "file"?); unknown key "dryrun" (did you mean "dryRun"?)',
    );
    expect(await failureMessage(erpOrders, { file: 42, batchSize: 5000, complete: 'yes' })).toBe(
      'Invalid erpOrders input: file: got 42, expected text; complete: got "yes", expected true or false; ' +
        'batchSize: got 5000, expected at most 1000',
    );
    expect(await failureMessage(bomRepair, { products: [], dryrun: true })).toBe(
      'Invalid BOM repair input: products: got an empty list, expected a non-empty list; ' +
        'unknown key "dryrun" (did you mean "dryRun"?)',
    );
    expect(
      await failureMessage(certificateReport, { thresholds: [7, 14], includeStatuses: ['APROVED'] }),
    ).toBe(
      'Invalid certificate report input: includeStatuses.0: "APROVED" is not one of DRAFT, REQUESTED, APPROVED, ' +
        'REJECTED, ACKNOWLEDGED, NOT_VERIFIABLE (did you mean "APPROVED"?); ' +
        'unknown key "thresholds" (did you mean "thresholdsDays"?)',
    );
    expect(await failureMessage(erpPull, { since: '2026-11-01' })).toBe(
      'Invalid erpPull input: unknown key "since" (it takes no keys: give {})',
    );
    expect(await failureMessage(inbox, { job: 'erp-order', folder: 7, profil: 'default' })).toBe(
      'Invalid inbox input: job: "erp-order" is not one of erp-orders, plm-import (did you mean "erp-orders"?); ' +
        'folder: got 7, expected text; unknown key "profil" (did you mean "profile"?)',
    );
    expect(
      await failureMessage(inbox, { job: 'erp-orders', folder: path.join(dir, 'inbox'), profile: 'eu' }),
    ).toBe('Invalid inbox input: profile: "eu" is not one of default (as erp-orders reads it)');
  });

  it('an input with many bad keys or long values reads in one short line, never echoing a secret-looking value', async () => {
    const many = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`extra${i}`, 'x'.repeat(10_000)]));
    const message = await failureMessage(certificateReport, { ...many, asOf: '2026-11-01' });
    expect(message).toMatch(
      /^Invalid certificate report input: unknown keys "extra0", "extra1", .* and 95 more \(known keys: asOf, timeZone, thresholdsDays, includeStatuses\)$/,
    );
    expect(message.length).toBeLessThan(300);

    const secret = 'sk_live_4eC39HqLyjWDarjtT1zdp7dc';
    const leaked = await failureMessage(plmImport, {
      file: 'y'.repeat(50_000),
      profile: 'https://ops:hunter2@example.com/profiles/flat.json',
      sheet: 7,
      approval: secret,
    });
    expect(leaked).not.toContain('hunter2');
    expect(leaked).not.toContain(secret);
    expect(leaked).toContain(
      'profile: a value that looks like a credential (not shown) is not one of native, flat',
    );
    expect(leaked).toContain('sheet: got 7, expected text');
    expect(leaked).toContain('approval: got a value that looks like a credential (not shown)');
    expect(leaked.length).toBeLessThan(600);
  });

  // The gate takes `true` or its options; `false`, `"true"` or a timeout as text were "approval: Invalid input".
  it('an approval the gate cannot take fails the run saying which shapes it takes', async () => {
    const shapes = 'expected true or {"timeoutSeconds": <seconds>, "onTimeout": "reject" or "approve"}';
    for (const [approval, expected] of [
      [false, `approval: got false, ${shapes}`],
      ['true', `approval: got "true", ${shapes}`],
      [{ timeoutSeconds: '3600' }, 'approval.timeoutSeconds: got "3600", expected a number'],
    ] as const) {
      const failure = await stack.client.workflow
        .execute(plmImport, {
          args: [{ file: path.join(dir, 'never-read.csv'), approval } as never],
          taskQueue: stack.taskQueue,
          workflowId: stack.workflowId('approval-shape'),
        })
        .then(
          () => undefined,
          (error: unknown) => error,
        );
      expect(failure).toBeInstanceOf(WorkflowFailedError);
      expect(String((failure as WorkflowFailedError).cause?.message)).toContain(expected);
    }
  });

  it('schedules apply refuses an entry whose input its job would refuse, naming entry, field and reason; applies none', async () => {
    const cli = (...args: string[]) => traceSync(args, cliEnv(stack), 90_000);
    const stamp = Date.now();
    const entry = (id: string, workflow: string, input: Record<string, unknown>) => ({
      id: `${id}-${stamp}`,
      workflow,
      cron: '0 2 * * *',
      input,
    });
    const file = path.join(dir, 'schedules.json');
    const write = (entries: unknown[]) => writeFileSync(file, JSON.stringify({ schedules: entries }));
    const good = entry('good', 'certificateReport', {});

    // Each reads as the job's own run would refuse it (inputProblems), after the schedule's id and place in the file,
    // not zod's "Invalid option: expected one of" for the first problem only.
    const refused = async (entries: unknown[]) => {
      write(entries);
      const out = await cli('schedules', 'apply', '--file', file);
      expect(out.status).not.toBe(0);
      expect(out.stderr).not.toMatch(/Invalid (input|option)|Unrecognized key/);
      return out.stderr.trim();
    };
    expect(
      await refused([good, entry('plm', 'plmImport', { file: '/data/inbox/plm/ss26.csv', profile: 'Flat' })]),
    ).toBe(
      `trace-sync: Schedules file ${file}: schedule "plm-${stamp}" (entry 2), plmImport input: ` +
        'profile: "Flat" is not one of native, flat (did you mean "flat"?)',
    );

    const secret = 'sk_live_4eC39HqLyjWDarjtT1zdp7dc';
    const typo = await refused([
      good,
      entry('typo', 'plmImport', { fiel: '/data/inbox/plm/ss26.csv', dryrun: true, approval: secret }),
    ]);
    expect(typo).toBe(
      `trace-sync: Schedules file ${file}: schedule "typo-${stamp}" (entry 2), plmImport input: ` +
        'file: missing (expected text); approval: got a value that looks like a credential (not shown), expected ' +
        'true or {"timeoutSeconds": <seconds>, "onTimeout": "reject" or "approve"}; ' +
        'unknown key "fiel" (did you mean "file"?); unknown key "dryrun" (did you mean "dryRun"?)',
    );

    expect(await refused([good, entry('bom', 'bomRepair', { since_last_run: true })])).toBe(
      `trace-sync: Schedules file ${file}: schedule "bom-${stamp}" (entry 2), bomRepair input: ` +
        'unknown key "since_last_run" (did you mean "sinceLastRun"?); ' +
        'give exactly one of products, updatedAfter, all or sinceLastRun (got 0)',
    );

    // Every entry with a problem is named, each once, and an entry's own fields read the same way.
    const both = await refused([
      entry('cert', 'certificateReport', { thresholds: [7, 14] }),
      good,
      { ...entry('cron', 'erpPull', {}), cron: '0 2 * *' },
    ]);
    expect(both).toBe(
      `trace-sync: Schedules file ${file}: schedule "cert-${stamp}" (entry 1), certificateReport input: ` +
        'unknown key "thresholds" (did you mean "thresholdsDays"?) | ' +
        `schedule "cron-${stamp}" (entry 3): cron: got "0 2 * *", expected five cron fields`,
    );

    // The inbox hands its profile to each file's job: a profile that job has not is refused here, not per drop.
    expect(
      await refused([
        good,
        entry('inbox', 'inbox', { job: 'erp-orders', folder: '/data/inbox/erp', profile: 'eu' }),
      ]),
    ).toBe(
      `trace-sync: Schedules file ${file}: schedule "inbox-${stamp}" (entry 2), inbox input: ` +
        'profile: "eu" is not one of default (as erp-orders reads it)',
    );

    const listed = await cli('schedules', 'list');
    expect(listed.stdout).not.toContain(String(stamp));

    write([good]);
    expect((await cli('schedules', 'apply', '--file', file)).stdout).toContain(`created  ${good.id}`);
    await stack.client.schedule.getHandle(good.id).delete();
  });

  // A schedule whose runs would all fail on their profile or mapping file was created all the same.
  it('schedules apply refuses both profile and mappingFile, and a mapping file this machine reads that does not load', async () => {
    const cli = (...args: string[]) => traceSync(args, cliEnv(stack), 90_000);
    const stamp = Date.now();
    const file = path.join(dir, 'schedules-mapping.json');
    const write = (entries: unknown[]) => writeFileSync(file, JSON.stringify({ schedules: entries }));
    const entry = (id: string, workflow: string, input: Record<string, unknown>) => ({
      id: `${id}-${stamp}`,
      workflow,
      cron: '0 2 * * *',
      input,
    });
    const good = entry('good', 'certificateReport', {});
    const notJson = path.join(dir, 'mapping-not-json.json');
    writeFileSync(notJson, '{"columns": ');
    const notProfile = path.join(dir, 'mapping-not-a-profile.json');
    writeFileSync(notProfile, JSON.stringify({ columns: 5 }));

    write([
      good,
      entry('both', 'plmImport', { file: '/data/in.csv', profile: 'flat', mappingFile: '/data/p.json' }),
      entry('inboxboth', 'inbox', {
        job: 'erp-orders',
        folder: '/data/in',
        profile: 'default',
        mappingFile: '/p.json',
      }),
      entry('erp', 'erpOrders', { file: '/data/orders.csv', mappingFile: notJson }),
      entry('plm', 'plmImport', { file: '/data/in.csv', mappingFile: notProfile }),
      entry('inbox', 'inbox', { job: 'plm-import', folder: '/data/in', mappingFile: notProfile }),
    ]);
    const out = await cli('schedules', 'apply', '--file', file);
    expect(out.status).not.toBe(0);
    const lines = out.stderr.trim().split(' | ');
    expect(lines[0]).toBe(
      `trace-sync: Schedules file ${file}: schedule "both-${stamp}" (entry 2), plmImport input: ` +
        'give either profile or mappingFile, not both',
    );
    expect(lines[1]).toBe(
      `schedule "inboxboth-${stamp}" (entry 3), inbox input: give either profile or mappingFile, not both`,
    );
    // The job's own loader read the file here, in the words its run fails with.
    expect(lines[2]).toMatch(
      new RegExp(
        `^schedule "erp-${stamp}" \\(entry 4\\), erpOrders input: mappingFile: cannot read mapping profile ` +
          `${notJson}: .*JSON.* \\(read on this machine\\)$`,
      ),
    );
    expect(lines[3]).toMatch(
      new RegExp(
        `^schedule "plm-${stamp}" \\(entry 5\\), plmImport input: mappingFile: mapping file ${notProfile}: ` +
          'invalid mapping profile: layout: missing .* \\(read on this machine\\)$',
      ),
    );
    expect(lines[4]).toMatch(
      new RegExp(
        `^schedule "inbox-${stamp}" \\(entry 6\\), inbox input: mappingFile: mapping file ${notProfile}: `,
      ),
    );
    expect((await cli('schedules', 'list')).stdout).not.toContain(String(stamp));

    // A mapping file only the workers have is theirs to read: applied, saying it was not checked here.
    const onWorkers = `/data/profiles/only-on-workers-${stamp}.json`;
    const remote = entry('remote', 'erpOrders', { file: '/data/orders.csv', mappingFile: onWorkers });
    write([remote]);
    const applied = await cli('schedules', 'apply', '--file', file);
    expect(cliProblems(applied.stderr)).toEqual([]);
    expect(applied.status).toBe(0);
    // What was applied on stdout, the note on stderr.
    expect(applied.stdout).toBe(`created  ${remote.id}\n`);
    expect(applied.stderr).toContain(
      `schedule "${remote.id}" (entry 1): mappingFile ${onWorkers} is not on this machine: not checked here (the workers read it at each run)`,
    );
    await stack.client.schedule.getHandle(remote.id).delete();
  });

  it('schedules apply names each duplicated schedule id and the entries it is at', async () => {
    const cli = (...args: string[]) => traceSync(args, cliEnv(stack), 90_000);
    const stamp = Date.now();
    const file = path.join(dir, 'schedules-duplicates.json');
    const entry = (id: string) => ({
      id: `${id}-${stamp}`,
      workflow: 'certificateReport',
      cron: '0 2 * * *',
    });
    writeFileSync(
      file,
      JSON.stringify({ schedules: [entry('a'), entry('b'), entry('a'), entry('c'), entry('b'), entry('a')] }),
    );
    const out = await cli('schedules', 'apply', '--file', file);
    expect(out.status).not.toBe(0);
    expect(out.stderr.trim()).toBe(
      `trace-sync: Schedules file ${file}: schedules: schedule ids must be unique: ` +
        `"a-${stamp}" is at entries 1, 3 and 6; "b-${stamp}" is at entries 2 and 5`,
    );
    expect((await cli('schedules', 'list')).stdout).not.toContain(String(stamp));
  });

  it('a schedules file that is missing, not JSON or refused is a configuration error: exit code 2', async () => {
    const cli = (...args: string[]) => traceSync(args, cliEnv(stack), 90_000);
    const file = path.join(dir, 'schedules-exit.json');
    const missing = await cli('schedules', 'apply', '--file', path.join(dir, 'no-such-schedules.json'));
    expect(missing.stderr).toMatch(/^trace-sync: Cannot read schedules file .*no-such-schedules\.json: /);
    expect(missing.status).toBe(2);
    writeFileSync(file, '{"schedules": [');
    const notJson = await cli('schedules', 'apply', '--file', file);
    expect(notJson.stderr).toMatch(/^trace-sync: Cannot read schedules file /);
    expect(notJson.status).toBe(2);
    writeFileSync(
      file,
      JSON.stringify({ schedules: [{ id: 'x', workflow: 'certificateReport', cron: '0 2 * *' }] }),
    );
    const refused = await cli('schedules', 'apply', '--file', file);
    expect(refused.stderr).toMatch(
      /^trace-sync: Schedules file .*cron: got "0 2 \* \*", expected five cron fields/,
    );
    expect(refused.status).toBe(2);
  });

  it('a schedule entry that is not an object, or has no usable id, reads by its place in plain words', async () => {
    const cli = (...args: string[]) => traceSync(args, cliEnv(stack), 90_000);
    const stamp = Date.now();
    const file = path.join(dir, 'schedules-shapes.json');
    const good = { id: `good-${stamp}`, workflow: 'certificateReport', cron: '0 2 * * *' };
    writeFileSync(
      file,
      JSON.stringify({ schedules: [good, [1, 2, 3], 'nightly', { ...good, id: 'Nightly Report' }] }),
    );
    const out = await cli('schedules', 'apply', '--file', file);
    expect(out.status).not.toBe(0);
    expect(out.stderr.trim()).toBe(
      `trace-sync: Schedules file ${file}: schedule entry 2: got a list of 3, expected an object {…} | ` +
        'schedule entry 3: got "nightly", expected an object {…} | ' +
        'schedule entry 4: id: got "Nightly Report": use lower-case letters, digits and dashes',
    );
  });

  // README, Schedules: "Backfill missed nights … with trace-sync certificate-report --as-of"; started by hand the
  // report read dates in UTC with the default ranges, so a backfill of a Stockholm schedule was not its night's report.
  it("certificate-report --schedule <id> backfills a night as that schedule's report: its zone, ranges and statuses", async () => {
    const cli = (...args: string[]) => traceSync(args, cliEnv(stack), 90_000);
    const id = `nightly-cert-${Date.now()}`;
    const file = path.join(dir, 'cert-schedule.json');
    const input = { thresholdsDays: [7, 14], includeStatuses: ['APPROVED'] };
    writeFileSync(
      file,
      JSON.stringify({
        schedules: [
          { id, workflow: 'certificateReport', cron: '0 2 * * *', timeZone: 'Europe/Stockholm', input },
        ],
      }),
    );
    expect((await cli('schedules', 'apply', '--file', file)).status).toBe(0);
    const relay = await countingRelay(readHarnessInfo().address);
    try {
      // One command, one Temporal connection: reading the schedule and starting the run share it.
      const out = await traceSync(
        ['certificate-report', '--as-of', '2026-11-01', '--schedule', id, '--wait'],
        cliEnv(stack, { TEMPORAL_ADDRESS: relay.address }),
        90_000,
      );
      expect(cliProblems(out.stderr)).toEqual([]);
      expect(out.status).toBe(0);
      expect(relay.connections()).toBe(1);
      const result = waitResult<CertificateReportResult>(out.stdout);
      expect(result).toMatchObject({
        asOf: '2026-11-01',
        timeZone: 'Europe/Stockholm',
        thresholdsDays: [7, 14],
        includedStatuses: ['APPROVED'],
      });
      // A flag given beside it wins.
      const utc = await cli('certificate-report', '--schedule', id, '--time-zone', 'UTC', '--wait');
      expect(waitResult<CertificateReportResult>(utc.stdout)).toMatchObject({
        timeZone: 'UTC',
        thresholdsDays: [7, 14],
      });
      const missing = await cli('certificate-report', '--schedule', 'no-such-schedule');
      expect(missing.status).not.toBe(0);
      expect(missing.stderr).toContain("No schedule 'no-such-schedule'");
    } finally {
      await relay.close();
      await stack.client.schedule.getHandle(id).delete();
    }
  });
});
