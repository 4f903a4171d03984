import { z } from 'zod';
import { storableInstant } from '../../core/domain/instant.js';

export const namespaceSchema = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/, 'letters, digits, . _ : - (max 128), starting with a letter or digit');
export const scopeIdSchema = z.string().trim().min(1).max(200).refine((s) => !s.includes('\u0000'), 'must not contain NUL characters');
export const isoInstantSchema = storableInstant('must be an ISO 8601 date-time with a time zone, e.g. 2026-01-10T09:00:00Z');
export const uuidSchema = z.uuid({ error: 'must be a UUID' });
/** Query-string booleans: "true"/"false"/"1"/"0". */
export const queryBoolean = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');
