/**
 * The barcode swaps (rings) a cancelled PLM run wrote whole, as the run's details and the CLI name them: `the swap
 * of A and B`, `the ring of A, B and C`, the first three and `2 more`. Pure: the workflow imports it too.
 */
export function ringsSaid(rings: readonly (readonly string[])[]): string[] {
  const said = rings.slice(0, 3).map((products) => {
    const named =
      products.length <= 2
        ? products.join(' and ')
        : `${products.slice(0, -1).join(', ')} and ${products.at(-1)}`;
    return `the ${products.length === 2 ? 'swap' : 'ring'} of ${named}`;
  });
  if (rings.length > 3) said.push(`${rings.length - 3} more`);
  return said;
}

/**
 * The code moves outside rings whose takers a cancelled PLM run wrote before it stopped, in the same words: `the code
 * move from A to B`, `the code moves from A to B to C`, the first three and `2 more`.
 */
export function chainsSaid(chains: readonly (readonly string[])[]): string[] {
  const said = chains
    .slice(0, 3)
    .map((products) => `the code move${products.length > 2 ? 's' : ''} from ${products.join(' to ')}`);
  if (chains.length > 3) said.push(`${chains.length - 3} more`);
  return said;
}
