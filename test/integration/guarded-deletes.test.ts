/**
 * A guarded delete (POST /material-headers/delete is retried after an answer lost once the delete committed) whose
 * retry is answered 200 with the already-deleted ids in `errors`. Spec 02, POST /material-headers/delete: "per-id
 * failures go into `errors` without failing the request"; a header the lost attempt deleted is one such failure on
 * the retry. The real PLM import workflow on a Temporal dev server, against the sandbox over HTTP with its
 * drop-after-commit fault.
 */
import { seededRandom } from '../../sandbox/core/prng';
import { family, plmRulesStack, toCsv } from './plm-rules-stack';

/** A fault seed whose first roll drops the answer (< 0.5) and whose second does not. */
function dropOnceSeed(): number {
  for (let seed = 1; ; seed++) {
    const roll = seededRandom(seed);
    if (roll() < 0.5 && roll() >= 0.5) return seed;
  }
}

describe('guarded deletes whose first answer was lost after the delete committed', () => {
  const { stack, nativeMapping, file, run, ownedCompositions, rejectsOf } = plmRulesStack();
  const faults = (body: object | null) =>
    fetch(`${new URL(stack().sandbox.baseUrl).origin}/__sandbox/faults`, {
      method: body ? 'PUT' : 'DELETE',
      headers: body ? { 'content-type': 'application/json' } : {},
      ...(body ? { body: JSON.stringify(body) } : {}),
    });

  afterEach(async () => {
    await faults(null);
  });

  it('"per-id failures go into `errors` without failing the request": ids the lost attempt deleted count as deleted, and the new composition is written', async () => {
    const first = await run({
      file: await file(
        'gd-1.csv',
        toCsv(family('GDEL1', { style: { composition: 'Shell: 100% Polyamide; Lining: 100% Polyester' } })),
      ),
      mappingFile: nativeMapping(),
    });
    expect(first.compositions).toMatchObject({ written: 1, rejected: 0 });
    expect((await ownedCompositions('GDEL1')).map((c) => c.name).sort()).toEqual(['Lining', 'Shell']);

    // The first POST /material-headers/delete commits and its answer is lost; the client's retry is answered 200
    // with `material_header_not_found` for both ids.
    const armed = await faults({
      dropAfterCommitRate: 0.5,
      methods: ['POST'],
      pathPrefix: '/material-headers/delete',
      seed: dropOnceSeed(),
    });
    expect(armed.status).toBe(200);
    const second = await run({
      file: await file('gd-2.csv', toCsv(family('GDEL1', { style: { composition: '100% Cotton' } }))),
      mappingFile: nativeMapping(),
    });
    const state = (await (
      await fetch(`${new URL(stack().sandbox.baseUrl).origin}/__sandbox/faults`)
    ).json()) as {
      counters: { dropped: number };
    };
    expect(state.counters.dropped).toBe(1);

    expect(rejectsOf(second)).toEqual([]);
    expect(second.compositions).toMatchObject({ written: 1, rejected: 0 });
    expect(
      (await ownedCompositions('GDEL1')).map(
        ({ name, lines }) => `${name}: ${lines.map((l) => `${l.percentage} ${l.rawMaterialId}`).join(', ')}`,
      ),
    ).toEqual(['Composition: 100 rawmat_cotton']);
  });
});
