import path from 'node:path';
import { createRequire } from 'node:module';
import express, { Router } from 'express';
import { buildOpenApiDocument, type OpenApiDocument } from '../openapi/document.js';

/** The locally installed swagger-ui-dist (no CDN): its static bundle is served under /docs. */
const SWAGGER_UI_DIR = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

const DOCS_ASSET = /^\/(swagger-ui-bundle\.js|swagger-ui\.css|favicon-(16x16|32x32)\.png)(\.map)?$/;

const DOCS_PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Mnemo API reference</title>
  <link rel="stylesheet" href="/docs/swagger-ui.css">
  <link rel="icon" type="image/png" href="/docs/favicon-32x32.png">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/docs/swagger-ui-bundle.js"></script>
  <script src="/docs/init.js"></script>
</body>
</html>
`;

/** Points the bundle at our document; a script file rather than inline, so a strict CSP can allow 'self' only. */
const INIT_SCRIPT = `window.ui = SwaggerUIBundle({
  url: '/openapi.json',
  dom_id: '#swagger-ui',
  deepLinking: true,
  persistAuthorization: true,
  presets: [SwaggerUIBundle.presets.apis],
});
`;

/** `GET /openapi.json` (the OpenAPI 3.1 document) and `GET /docs` (an interactive reference of it); no auth. */
export function docsRoutes(): Router {
  const router = Router();
  // Built on first request, then reused: the schemas do not change while the process runs.
  let document: OpenApiDocument | undefined;
  router.get('/openapi.json', (_req, res) => {
    document ??= buildOpenApiDocument();
    res.json(document);
  });
  router.get(['/docs', '/docs/'], (_req, res) => {
    res.type('html').send(DOCS_PAGE);
  });
  router.get('/docs/init.js', (_req, res) => {
    res.type('application/javascript').send(INIT_SCRIPT);
  });
  // Only the assets the page uses: the package's own index.html and initializer point at the public petstore.
  const assets = express.static(SWAGGER_UI_DIR, { index: false, maxAge: '1h' });
  router.use('/docs', (req, res, next) => (DOCS_ASSET.test(req.path) ? assets(req, res, next) : next()));
  return router;
}
