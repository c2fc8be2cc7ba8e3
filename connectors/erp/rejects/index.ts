export { ERROR_CODE_COLUMN, ERROR_MESSAGE_COLUMN, rejectedRows, writeRejects, type RejectsFile } from './write';
