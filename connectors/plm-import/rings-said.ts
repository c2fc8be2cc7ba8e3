/**
 * The barcode swaps (rings) and code moves a cancelled PLM run wrote whole, as the run's details and the CLI name
 * them. Pure: the workflow imports it too.
 */

/** `the swap of A and B`, `the ring of A, B and C`. */
function ringSaid(products: readonly string[]): string {
  return `the ${products.length === 2 ? 'swap' : 'ring'} of ${listed(products)}`;
}

/** `A`, `A and B`, `A, B and C`. */
function listed(items: readonly string[]): string {
  return items.length <= 2 ? items.join(' and ') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}

/**
 * Code moves whose takers the run wrote (into a ring's product too, but not within a ring): `the code move from A to
 * B`; past two products `the code moves between A, B and C` (a chain or a branch: "from A to B to C" would say B gave
 * to C).
 */
function chainSaid(products: readonly string[]): string {
  return products.length === 2
    ? `the code move from ${products[0]} to ${products[1]}`
    : `the code moves between ${listed(products)}`;
}

/**
 * The rings, then the code moves, as one list (`the swap of A and B and the code move from C to D`): the first three
 * and `2 more`; '' when there are none. `verb` agrees with all it names (`was`, or `were` for two or more, or for
 * a group of moves).
 */
export function finishedSaid(
  rings: readonly (readonly string[])[],
  chains: readonly (readonly string[])[],
): { said: string; verb: 'was' | 'were' } {
  const all = [...rings.map(ringSaid), ...chains.map(chainSaid)];
  const named = all.slice(0, 3);
  if (all.length > 3) named.push(`${all.length - 3} more`);
  const said = listed(named);
  const plural = all.length > 1 || chains.some((products) => products.length > 2);
  return { said, verb: plural ? 'were' : 'was' };
}
