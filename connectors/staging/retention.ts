// Kept apart from the sweep (which loads the stores) so that the worker's configuration can read it too.

/** Days an ended run's staged data stays after it was written by default (TRACE_STAGING_RETENTION_DAYS). */
export const DEFAULT_STAGING_RETENTION_DAYS = 7;
