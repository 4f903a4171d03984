import { createHash } from 'node:crypto';

/** SHA-256 (hex) of a user id or workflow id: what an erasure keeps instead of the id itself. */
export function sha256Hex(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}
