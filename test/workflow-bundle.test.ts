import { readFileSync } from 'node:fs';

describe('workflow bundle', () => {
  it('preloads zod once per worker thread (a bare preload of a package free of side effects is dropped by the bundler)', () => {
    // The bundle every worker of this run loads: written once by the global setup with writeWorkflowBundle.
    const file = process.env.WORKFLOW_BUNDLE_PATH;
    expect(file).toBeTruthy();
    const code = readFileSync(file!, 'utf8');
    const preload = /exports\.preloadModules = function preloadModules\(\) \{([^}]*)\}/.exec(code);
    expect(preload).not.toBeNull();
    expect(preload![1]).toContain('"./core/temporal/sharedWorkflowModules.ts"');
    // The preloaded module really pulls zod in (its body requires the zod/mini entry).
    const definition = code.indexOf('/***/ "./core/temporal/sharedWorkflowModules.ts"');
    expect(definition).toBeGreaterThan(-1);
    expect(code.slice(definition, definition + 2000)).toContain('__webpack_require__(/*! zod/mini */ "./node_modules/zod/mini/index.js")');
  });
});
