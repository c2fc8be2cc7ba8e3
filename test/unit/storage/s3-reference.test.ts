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

  it('names an ARN as one, not as credentials, its advice whole however long the ARN', () => {
    const said =
      'an ARN (of an access point or a bucket) is not read as an s3:// reference: give s3://bucket/key';
    const accessPoint = `s3://arn:aws:s3:us-west-2:123456789012:accesspoint/${'a'.repeat(150)}/orders.csv`;
    expect(s3ReferenceProblem(accessPoint, true)).toBe(said);
    expect(s3ReferenceProblem('s3://arn:aws:s3:::my-bucket/orders.csv', true)).toBe(said);
    expect(jobInputProblems('plm-import', { file: accessPoint })).toMatch(/give s3:\/\/bucket\/key$/);
  });

  it('takes keys holding @ and :, dotted bucket names and a doubled slash', () => {
    for (const ref of ['s3://erp.exports.eu/2026/po@acme:v2.csv', 's3://bucket//key.csv'])
      expect(s3ReferenceProblem(ref, true)).toBeUndefined();
  });
});
