import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's root folder. Kept apart from env.ts, whose importers are the tests that depend on which PostgreSQL runs. */
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
