import { jobInputProblems } from '../../../worker/job-inputs';
import { s3ReferenceProblem } from '../../../connectors/s3-reference';

describe('an s3:// input reference, checked before a run starts', () => {
  const secret = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';

  it('says the whole credentials message where the Web UI and schedules apply show it, the secret nowhere', () => {
    const said = jobInputProblems('erp-orders', {
      file: `s3://AKIAIOSFODNN7EXAMPLE:${secret}@bucket/orders.csv`,
      mappingFile: `s3://AKIAIOSFODNN7EXAMPLE:${secret}@bucket/profile.json`,
    });
    expect(said).toMatch(/credentials do not belong in an s3:\/\/ reference.*AWS_ACCESS_KEY_ID.*AWS_PROFILE/);
    expect(said).not.toContain('…');
    expect(said).not.toContain(secret);
    expect(said).not.toContain('AKIAIOSFODNN7EXAMPLE');
  });

  it('names an access point ARN as one, not as credentials', () => {
    const ref = 's3://arn:aws:s3:us-west-2:123456789012:accesspoint/ap/orders.csv';
    expect(s3ReferenceProblem(ref, true)).toBe(
      `${ref} is an access point ARN, which is not read: give s3://bucket/key`,
    );
  });

  it('takes keys holding @ and :, dotted bucket names and a doubled slash', () => {
    for (const ref of ['s3://erp.exports.eu/2026/po@acme:v2.csv', 's3://bucket//key.csv'])
      expect(s3ReferenceProblem(ref, true)).toBeUndefined();
  });
});
