import { loadProfileFile, ProfileError } from './erp-orders/profile';
import { PlmInputError, resolveProfile } from './plm-import/read-sheet';

/** The jobs that read a mapping file (`mappingFile` in their input, or an inbox's for each drop). */
export type MappingJob = 'plm-import' | 'erp-orders';

/**
 * What the job's run would refuse in its mapping file, loaded by the job's own loader and in its words (`mapping
 * file /p.json: …` for the PLM import, `cannot read mapping profile /p.json: …` for ERP orders); undefined when it
 * loads. Any other failure is thrown.
 */
export async function mappingFileProblem(job: MappingJob, mappingFile: string): Promise<string | undefined> {
  try {
    if (job === 'plm-import') await resolveProfile({ mappingFile });
    else await loadProfileFile(mappingFile);
    return undefined;
  } catch (error) {
    if (error instanceof PlmInputError || error instanceof ProfileError) return error.message;
    throw error;
  }
}
