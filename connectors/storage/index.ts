export { checkKey, StoreError, type ListedObject, type ObjectStore, type StoreBody } from './object-store';
export { LocalStore, writeFileAtomically } from './local-store';
export { parseS3Url, S3Store } from './s3-store';
export { openStore, s3ClientFor, type StoreSettings } from './open-store';
export {
  bindDataDir,
  fetchFile,
  fetchFolder,
  locate,
  publishFile,
  publishFolder,
  refreshFile,
  storedLocation,
  type StoreLocation,
} from './data-dir';
export {
  configureStorage,
  copyInput,
  inputExists,
  inputObject,
  InputRefusedError,
  isS3Url,
  readInputText,
} from './inputs';
export { MERGE_ATTEMPTS, mergeIntoStored } from './merged-write';
