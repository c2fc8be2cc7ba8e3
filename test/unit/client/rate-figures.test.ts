import { describe, expect, it } from '@jest/globals';
import { cellFigures } from '../../../bench/client-rate-figures';

// A key at 120/min with a call every 500 ms (at 250 ms past each half second) from 0 to 240 s holds exactly
// 120 calls in every 60 s window; each test takes calls out of that grid and puts some back.
const grid = Array.from({ length: 480 }, (_, k) => 250 + k * 500);
const figuresOf = (calls: number[]) => cellFigures(120, calls, 0, [{ from: 0, to: 240_000, counted: calls }]);
const without = (removed: number[]) => grid.filter((t) => !removed.includes(t));

describe('client-rate figures: time under the goal', () => {
  it('is 0 for a key that holds the allowance in every window', () => {
    const f = figuresOf(grid);
    expect(f.useMin).toBe(1);
    expect(f.underGoalMs).toBe(0);
  });

  it('is the whole time four missing calls stand in the window (116 of 120 < 97%)', () => {
    const f = figuresOf(without([100_250, 100_750, 101_250, 101_750]));
    expect(f.useMin).toBe(116 / 120);
    // From the fourth gone (101.75 s) until the first of them leaves the window (160.25 s).
    expect(f.underGoalMs).toBe(160_250 - 101_750);
  });

  it('counts a dip between two whole seconds that the whole-second windows do not see', () => {
    // Four calls, gone from the grid in the 2 s before, come in 50 ms after the last of them left its
    // place: the window holds 116 from 81.75 s to 81.80 s, and no second ends in it.
    const late = [81_800, 81_801, 81_802, 81_803];
    const f = figuresOf([...without([80_250, 80_750, 81_250, 81_750]), ...late]);
    expect(f.useMin).toBe(118 / 120); // at 81 s: two of the four gone
    expect(f.underGoalMs).toBe(50);
  });
});
