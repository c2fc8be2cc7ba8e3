import { z } from 'zod';

/**
 * An `s3://` reference as a job's input (`file`, `mappingFile`, an inbox's `folder`), checked before anything starts
 * or reads it. Workflow code imports this module: it stays deterministic and free of Node built-ins.
 */

/** What is said for a reference with credentials in it; it never repeats the reference, whose userinfo is the secret. */
export const CREDENTIALS_IN_REFERENCE =
  'credentials do not belong in an s3:// reference (the run history would keep them): give s3://bucket/key and ' +
  "the worker's credentials in AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY or AWS_PROFILE";

/**
 * Whether the reference carries userinfo (`s3://id:secret@bucket/key`). A bucket name holds neither `@` nor `:`, so
 * either before the first `/` is userinfo; a secret key may itself hold a `/`, which ends that part early but leaves
 * its `:` before it.
 */
export function hasUserinfo(ref: string): boolean {
  return /^s3:\/\/[^/]*[@:]/i.test(ref);
}

/**
 * What is wrong with `ref` as an `s3://` input, in one line; undefined for a reference that is not `s3://` or is
 * fine. `needsKey`: a file (an object) rather than a folder (an inbox may be a whole bucket).
 */
export function s3ReferenceProblem(ref: string, needsKey: boolean): string | undefined {
  if (!/^s3:\/\//i.test(ref)) return undefined;
  if (/^s3:\/\/arn:[^@]*$/i.test(ref))
    return 'an ARN (of an access point or a bucket) is not read as an s3:// reference: give s3://bucket/key';
  if (hasUserinfo(ref)) return CREDENTIALS_IN_REFERENCE;
  const match = /^s3:\/\/([^/]*)\/*(.*)$/i.exec(ref);
  if (!match?.[1]) return `${ref} names no bucket: give s3://bucket/key`;
  if (needsKey && (match[2] ?? '') === '')
    return `${ref} names a bucket but no object key: give s3://${match[1]}/key`;
  return undefined;
}

function referenceOf(needsKey: boolean) {
  return z
    .string()
    .min(1)
    .superRefine((ref, context) => {
      const problem = s3ReferenceProblem(ref, needsKey);
      // The value is left out of the issue: a reference with credentials is not shown, whatever prints the issue.
      if (problem !== undefined)
        context.addIssue({ code: 'custom', message: problem, input: hasUserinfo(ref) ? undefined : ref });
    });
}

/** A job's input file or mapping file: a worker path, or an `s3://bucket/key` with no credentials in it. */
export const inputFileReference = referenceOf(true);

/** An inbox folder: a worker path, or an `s3://bucket[/prefix]` with no credentials in it. */
export const inputFolderReference = referenceOf(false);
