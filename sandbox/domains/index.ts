import type { SandboxDomain } from '../core/context';
import { catalogueDomain } from './catalogue';
import { filesDomain } from './files';
import { bomsDomain } from './boms';
import { materialsDomain } from './materials';
import { certificatesDomain } from './certificates';
import { networkDomain } from './network';
import { ordersDomain } from './orders';

/** Every slice of the API the sandbox serves; each owns its store, seed section and routes. */
export const domains: SandboxDomain<unknown>[] = [
  filesDomain as SandboxDomain<unknown>,
  catalogueDomain as SandboxDomain<unknown>,
  bomsDomain as SandboxDomain<unknown>,
  materialsDomain as SandboxDomain<unknown>,
  ordersDomain as SandboxDomain<unknown>,
  certificatesDomain as SandboxDomain<unknown>,
  networkDomain as SandboxDomain<unknown>,
];
