import path from 'node:path';
import { ESLint } from 'eslint';
import { ROOT } from './support/paths.js';

// The Temporal samples' rule: workflow code may not import Node built-ins or I/O packages.
async function lintWorkflow(code: string): Promise<string[]> {
  const eslint = new ESLint({ cwd: ROOT });
  const [result] = await eslint.lintText(code, { filePath: path.join(ROOT, 'workflows/lint-probe.ts') });
  return result.messages.filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

describe('eslint: workflows/ stay deterministic', () => {
  it.each([
    ["import fs from 'node:fs';", 'node:fs'],
    ["import { readFile } from 'fs';", 'fs'],
    ["import crypto from 'crypto';", 'crypto'],
    ["import path from 'path';", 'path'],
    ["import http from 'http';", 'http'],
    ["import pg from 'pg';", 'pg'],
    ["import { PrismaClient } from '@prisma/client';", '@prisma/client'],
    ["import OpenAI from 'openai';", 'openai'],
    ["import express from 'express';", 'express'],
    ["import { Context } from '@temporalio/activity';", '@temporalio/activity'],
    ["import { Client } from '@temporalio/client';", '@temporalio/client'],
    ["import { Worker } from '@temporalio/worker';", '@temporalio/worker'],
    ["import { createPool } from '../core/db/pool.js';", '../core/db/pool.js'],
  ])('rejects %s', async (code, name) => {
    const messages = await lintWorkflow(`${code}\nexport const used = [${code.match(/import \{?\s*(\w+)/)?.[1]}];\n`);
    expect(messages).toHaveLength(1);
    expect(messages[0]).toContain(`'${name}'`);
  });

  it('allows the workflow API, type-only imports of activities and pure helpers', async () => {
    const code = [
      "import { proxyActivities, sleep } from '@temporalio/workflow';",
      "import type * as activities from '../activities/index.js';",
      "import { STAGES } from '../core/domain/types.js';",
      'const a = proxyActivities<typeof activities>({ startToCloseTimeout: "1 minute" });',
      'export const used = [a, sleep, STAGES];',
      '',
    ].join('\n');
    expect(await lintWorkflow(code)).toEqual([]);
  });

  it('does not apply the rule outside workflows/', async () => {
    const eslint = new ESLint({ cwd: ROOT });
    const [result] = await eslint.lintText("import pg from 'pg';\nexport const used = pg;\n", {
      filePath: path.join(ROOT, 'activities/lint-probe.ts'),
    });
    expect(result.messages).toEqual([]);
  });
});
