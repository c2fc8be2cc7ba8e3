import { ratePolicy } from '../../../connectors/traceability/rate-policy';
import { MIN } from './rate-sim';

// The sharing rule every process on a key applies alike (connectors/traceability/rate-policy.ts): the key's
// top, the reserve kept back for calls not yet seen, and the sharing cap at each key-wide count.

describe('ratePolicy', () => {
  it('alone, aims at the allowance less one call (the first call of a process that joins)', () => {
    expect(ratePolicy(600, 50, MIN, false)).toMatchObject({ reserve: 1, top: 599 });
    expect(ratePolicy(3000, 100, MIN, false)).toMatchObject({ reserve: 1, top: 2999 });
    expect(ratePolicy(30, 100, MIN, false).capAt(29)).toBe(29);
  });

  it('shared over 240/min, keeps back the calls the key sends in one round trip, at least 2', () => {
    expect(ratePolicy(241, 100, MIN, true)).toMatchObject({ reserve: 2, top: 239 });
    expect(ratePolicy(600, 100, MIN, true)).toMatchObject({ reserve: 2, top: 598 });
    expect(ratePolicy(600, 330, MIN, true)).toMatchObject({ reserve: 4, top: 596 });
    expect(ratePolicy(3000, 100, MIN, true)).toMatchObject({ reserve: 5, top: 2995 });
  });

  it('shared up to 240/min (calls a quarter second apart or more), every process keeps back 1 call, whatever its share', () => {
    expect(ratePolicy(240, 100, MIN, true)).toMatchObject({ reserve: 1, top: 239 });
    // A late joiner holding a sixth of the key aims at the same top as the incumbent, so it can take the
    // key to 119 of 120, where the incumbent's cap binds (kept back 2, it stopped at 118, where none does).
    expect(ratePolicy(120, 100, MIN, true, false, true)).toMatchObject({ reserve: 1, top: 119 });
    expect(ratePolicy(120, 100, MIN, true, true)).toMatchObject({ reserve: 1, top: 119 });
    // (still the calls the key sends in two round trips, where those are more)
    expect(ratePolicy(240, 500, MIN, true)).toMatchObject({ reserve: 4, top: 236 });
  });

  it('shared where two calls take over a second (under 120/min), every process keeps back 1 call and rounds the cap up', () => {
    expect(ratePolicy(30, 100, MIN, true)).toMatchObject({ reserve: 1, top: 29 });
    expect(ratePolicy(119, 100, MIN, true)).toMatchObject({ reserve: 1, top: 118 });
    // Two processes settle the key at the top: at 29 each may hold 15, not 14.5.
    expect(ratePolicy(30, 100, MIN, true).capAt(29)).toBe(15);
  });

  it('from 125 to 174/min, where 2% of the allowance rounds to 3, the band is 2: a pair settles the key at the top at half of it each', () => {
    // (With a band of 3, at u = top - 1 the cap was two thirds of the top, 99 of 148 at 150/min: any split up
    // to 2:1 stood, against the "the split between processes with equal work within 10% of even".)
    for (const limit of [125, 150, 174]) {
      const pair = ratePolicy(limit, 100, MIN, true, true);
      expect(pair.band).toBe(2);
      expect(pair.capAt(pair.top)).toBe(Math.ceil(pair.top / 2));
      expect(pair.capAt(pair.top - 1)).toBe(pair.top);
    }
    expect(ratePolicy(175, 100, MIN, true, true).band).toBe(4);
  });

  it('there, a process holding under 40% of the key shares it with two others or more: four settle it a call under the top, 7 each', () => {
    const small = ratePolicy(30, 100, MIN, true, false, true);
    expect(small).toMatchObject({ top: 29, band: 4 });
    // At the top, a quarter of it: the fourth process's 8th call (29 = 8/7/7/7, one 10% over even) is not
    // replaced; a call under the top, half of it.
    expect(small.capAt(29)).toBe(7.25);
    expect(small.capAt(28)).toBe(14.5);
  });

  it('shared with one other, rounds the cap up, so that two processes settle the key at the top', () => {
    // At 120/min the top is 119 and the cap at the top half of it: 59.5 left two processes at 59 each.
    expect(ratePolicy(120, 100, MIN, true, true).capAt(119)).toBe(60);
    expect(ratePolicy(120, 100, MIN, true, false).capAt(119)).toBe(59.5);
  });

  it('shared, gives every process the same cap for the same key-wide count, falling to 0 past the top', () => {
    const { top, capAt } = ratePolicy(600, 50, MIN, true);
    expect(capAt(top - 20)).toBe(top);
    expect(capAt(top - 5)).toBeLessThan(top);
    expect(capAt(top - 5)).toBeGreaterThan(capAt(top));
    expect(capAt(top + 1)).toBe(0);
  });
});
