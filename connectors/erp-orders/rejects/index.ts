export {
  ERROR_CODE_COLUMN,
  ERROR_MESSAGE_COLUMN,
  rejectedRows,
  writeRejects,
  type RejectedOrder,
  type RejectsFile,
} from './write';
