import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../core/embedded/ports.js';
import { startTemporalDevServer } from '../core/embedded/temporalServer.js';

/**
 * A Temporal dev server that dies while starting (a Go panic: its message,
 * then kilobytes of goroutine stacks) is reported with the message, not only
 * the end of the stack that follows it.
 */
describe('a Temporal dev server that exits before it is ready', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'mnemo-temporal-panic-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("names the panic's message and the stack's last lines", async () => {
    const cli = path.join(dir, 'temporal');
    const frames = Array.from({ length: 400 }, (_, i) => `go.uber.org/dig.paramList.BuildList(frame ${i})\\n\\t/go/pkg/mod/dig/param.go:151 +0xad`).join('\\n');
    writeFileSync(cli, `#!/bin/sh\nprintf 'panic: listen tcp 127.0.0.1:7299: bind: address already in use\\n\\ngoroutine 1 [running]:\\n${frames}\\nmain.main()\\n' >&2\nexit 2\n`);
    chmodSync(cli, 0o755);
    const started = startTemporalDevServer({ cli, dir: path.join(dir, 'data'), namespace: 'default', port: await freePort(), uiPort: await freePort(), readyTimeoutMs: 10_000 });
    const error = await started.then(() => null, (err: Error) => err);
    expect(error?.message).toContain('exited (2) before it was ready');
    expect(error?.message).toContain('panic: listen tcp 127.0.0.1:7299: bind: address already in use');
    expect(error?.message).toContain('main.main()');
    expect(error!.message.length).toBeLessThan(4_500);
  });
});
