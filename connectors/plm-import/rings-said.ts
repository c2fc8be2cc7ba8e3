/**
 * The barcode swaps (rings) and code moves a cancelled PLM run wrote whole, as the run's details and the CLI name
 * them. Pure: the workflow imports it too.
 */

/** `the swap of A and B`, `the ring of A, B and C`. */
function ringSaid(products: readonly string[]): string {
  const named =
    products.length <= 2
      ? products.join(' and ')
      : `${products.slice(0, -1).join(', ')} and ${products.at(-1)}`;
  return `the ${products.length === 2 ? 'swap' : 'ring'} of ${named}`;
}

/** A code move outside rings whose taker the run wrote: `the code move from A to B`, `the code moves from A to B to C`. */
function chainSaid(products: readonly string[]): string {
  return `the code move${products.length > 2 ? 's' : ''} from ${products.join(' to ')}`;
}

/**
 * The rings, then the code moves, as one list (`the swap of A and B and the code move from C to D`): the first three
 * and `2 more`. `count` is how many it stands for, for the verb (`was`/`were`).
 */
export function finishedSaid(
  rings: readonly (readonly string[])[],
  chains: readonly (readonly string[])[],
): { said: string; count: number } {
  const all = [...rings.map(ringSaid), ...chains.map(chainSaid)];
  const named = all.slice(0, 3);
  if (all.length > 3) named.push(`${all.length - 3} more`);
  const said = named.length <= 1 ? (named[0] ?? '') : `${named.slice(0, -1).join(', ')} and ${named.at(-1)}`;
  return { said, count: all.length };
}
