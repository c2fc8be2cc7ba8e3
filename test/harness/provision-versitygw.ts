// `node bin/run-ts.cjs test/harness/provision-versitygw.ts`: finds or installs versitygw and prints its path (.ci/run).
import { provisionVersitygw } from './versitygw';

const found = provisionVersitygw({ log: (line) => process.stderr.write(`${line}\n`) });
if (found.path === undefined) {
  process.stderr.write(`versitygw: ${found.reason}\n`);
  process.exit(1);
}
process.stderr.write(`versitygw from ${found.source}\n`);
process.stdout.write(`${found.path}\n`);
