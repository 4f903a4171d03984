import path from 'node:path';
import { loadRecallDataset } from '../lib/recallData.js';
import { ROOT } from './benchStack.js';

export const DEFAULT_DATASET = path.resolve(ROOT, '../shared/datasets/realtalk');

export interface Turn {
  conversation: string;
  speaker: string;
  text: string;
  occurredAt: string;
  diaId: string;
}

/** Chat turns of a dataset (REALTALK folder or LoCoMo file, as bench:recall reads them), in conversation order. */
export function readTurns(location = DEFAULT_DATASET): Turn[] {
  return loadRecallDataset(location).flatMap((c) => c.turns.map((t) => ({ conversation: c.key, ...t })));
}
