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
