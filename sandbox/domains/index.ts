import type { SandboxDomain } from '../core/context';

/** Every slice of the API the sandbox serves; each owns its store, seed section and routes. */
export const domains: SandboxDomain<unknown>[] = [];
