import type { NativeConnection } from '@temporalio/worker';
import { SetupError } from './config';
import { CLI_TYPE_NAMES, SEARCH_ATTRIBUTES } from './search-attributes';

export interface MissingSearchAttribute {
  name: string;
  /** As `temporal operator search-attribute create --type` spells it. */
  type: string;
}

/** The project's custom search attributes the namespace has no mapping for. */
export async function missingSearchAttributes(
  connection: NativeConnection,
  namespace: string,
): Promise<MissingSearchAttribute[]> {
  const answer = await connection.operatorService.listSearchAttributes({ namespace });
  const known = new Set(Object.keys(answer.customAttributes ?? {}));
  return SEARCH_ATTRIBUTES.filter((key) => !known.has(key.name)).map((key) => ({
    name: key.name,
    type: CLI_TYPE_NAMES[key.type],
  }));
}

/**
 * The shell line that registers `missing`: one `temporal operator search-attribute create` per attribute (CLI 1.x
 * accepts several `--name` flags but registers only the first).
 */
export function createSearchAttributesCommand(
  missing: readonly MissingSearchAttribute[],
  address: string,
  namespace: string,
): string {
  return missing
    .map(
      (attribute) =>
        `temporal operator search-attribute create --address ${address} --namespace ${namespace}` +
        ` --name ${attribute.name} --type ${attribute.type}`,
    )
    .join(' && ');
}

/**
 * Stops a worker whose namespace lacks the project's search attributes: every workflow sets them, and the server
 * refuses each such workflow task (BadSearchAttributes) again and again, so no run would ever finish. Embedded dev
 * servers and the compose stack register them; an existing cluster needs an operator to.
 */
export async function checkSearchAttributes(
  connection: NativeConnection,
  address: string,
  namespace: string,
): Promise<void> {
  const missing = await missingSearchAttributes(connection, namespace);
  if (missing.length === 0) return;
  const names = missing.map((attribute) => `${attribute.name} (${attribute.type})`).join(', ');
  throw new SetupError(
    `Temporal namespace ${namespace} at ${address} has no search attribute ${names}; register them with: ` +
      createSearchAttributesCommand(missing, address, namespace),
  );
}
