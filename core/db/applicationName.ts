/**
 * The application_name of the read path's sessions (see createPool): it names
 * them in pg_stat_activity, and the embedded PGlite serves them first
 * (core/embedded/sessionLock.ts).
 */
export const READ_APPLICATION_NAME = 'mnemo-read';
