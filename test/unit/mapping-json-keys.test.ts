import { mappingJsonProblem } from '../../connectors/json-keys';

/** What JSON.parse hides in a mapping file: a key given twice, a `__proto__` key, nesting past 64 levels. */
describe('mapping file keys JSON.parse would hide', () => {
  it('names both lines of a key given twice, whatever the line endings', () => {
    for (const eol of ['\n', '\r\n', '\r']) {
      const text = ['{', '"layout": "native",', '"sheet": "A",', '"layout": "flat"', '}'].join(eol);
      expect({ eol, said: mappingJsonProblem(text) }).toEqual({
        eol,
        said: expect.stringContaining('"layout" appears twice in the top level (lines 2 and 4)') as unknown,
      });
    }
  });

  it('reads strings as JSON does: escaped quotes, braces and commas inside them, keys spelt with escapes', () => {
    expect(mappingJsonProblem('{"a": "x\\"}{,", "b\\\\": [1, {"a": 2}], "c": "\\u0061"}')).toBeUndefined();
    expect(mappingJsonProblem('{"a": 1, "\\u0061": 2}')).toMatch(/"a" appears twice/);
  });

  it('refuses __proto__ anywhere and nesting past 64 levels, and leaves text that is not JSON to JSON.parse', () => {
    expect(mappingJsonProblem('{"unitAliases": {"__proto__": "PIECES"}}')).toMatch(
      /the key "__proto__" \(in unitAliases, line 1\)/,
    );
    expect(mappingJsonProblem(`${'['.repeat(64)}${']'.repeat(64)}`)).toBeUndefined();
    expect(mappingJsonProblem(`${'['.repeat(65)}${']'.repeat(65)}`)).toMatch(/nested more than 64 levels/);
    expect(mappingJsonProblem('{"a": "never closed')).toBeUndefined();
  });
});
