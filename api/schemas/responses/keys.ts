import { z } from 'zod';
import { ROLES } from '../../../core/domain/types.js';
import { instant, nullableInstant } from './common.js';

/** core/auth/keyManagement.ts KeyView: a stored key, never its secret. */
export const apiKeySchema = z
  .object({ id: z.uuid(), namespace: z.string(), role: z.enum(ROLES), label: z.string().nullable(), created_at: instant, revoked_at: nullableInstant })
  .meta({ id: 'ApiKey' });

/** `201` of `POST /v1/keys`: the only answer that holds the secret. */
export const createdApiKeySchema = apiKeySchema
  .extend({ key: z.string().meta({ description: 'The bearer secret: shown this once, only its hash is stored' }) })
  .meta({
    id: 'CreatedApiKey',
    example: {
      id: '6c1d1c52-8f0e-4a53-9b36-2f4c1d8e9a10',
      namespace: 'acme',
      role: 'agent',
      label: 'support bot',
      created_at: '2026-01-10T09:00:00.000Z',
      revoked_at: null,
      key: 'mnemo_4fK9w2LrQ0bXyZ1aV7cT3nHs5dE8uJ6p',
    },
  });

export const apiKeyListSchema = z.object({ keys: z.array(apiKeySchema) }).meta({ id: 'ApiKeyList' });
