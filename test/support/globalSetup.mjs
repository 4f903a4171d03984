// Plain ESM: jest loads global setup outside its module mapper, so TypeScript
// sources are imported through tsx.
import { tsImport } from 'tsx/esm/api';

/** Sets up what the run needs (see testServices.ts): model, Temporal binaries, the dev server, PGlite. */
export default async function globalSetup() {
  const { setUpTestServices } = await tsImport('./testServices.ts', import.meta.url);
  globalThis.__MNEMO_TEST_SERVICES__ = await setUpTestServices();
}
