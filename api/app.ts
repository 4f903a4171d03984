import express, { type Express, type RequestHandler } from 'express';
import type { Deps } from '../core/deps.js';
import { authenticate } from './auth.js';
import { errorHandler, HttpError, unknownRoute } from './errors.js';
import { kgRoutes } from './kg/routes.js';
import { installRequestLogging } from './requestLogging.js';
import { overloadGuard, shedReadsWhileLagging } from './overload.js';
import { rateLimit } from './rateLimit.js';
import { wellFormedInput } from './wellFormedInput.js';
import { docsRoutes } from './routes/docs.js';
import { healthRoutes } from './routes/health.js';
import { httpMetrics, matchedRoute, metricsRoutes, type MetricsRouteOptions } from './routes/metrics.js';
import { requestSpans } from '../core/telemetry/requestSpans.js';
import { v1Routes } from './routes/v1.js';
import { mcpRoutes } from './routes/mcp.js';

/** Bodies must be JSON: anything else with a body is 415. */
const jsonOnly: RequestHandler = (req, _res, next) => {
  const hasBody = Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;
  if (hasBody && !req.is('application/json')) {
    return next(new HttpError('unsupported_media_type', 'Request bodies must be application/json'));
  }
  next();
};

export function createApp(deps: Deps, options: { metrics?: MetricsRouteOptions } = {}): Express {
  const app = express();
  app.disable('x-powered-by');
  // Answers are computed per request (decay moves with the clock): hashing every body for an ETag bought nothing.
  app.disable('etag');
  app.set('query parser', 'extended');
  installRequestLogging(app, deps.logger);
  app.use(httpMetrics(deps.metrics));
  if (deps.tracing) app.use(requestSpans(deps.tracing.tracer, matchedRoute));
  app.use(healthRoutes(deps));
  app.use(metricsRoutes(deps, options.metrics));
  app.use(docsRoutes());
  app.use('/v1', shedReadsWhileLagging(deps), jsonOnly, express.json({ limit: deps.config.BODY_LIMIT, strict: true }), authenticate(deps), rateLimit(deps), wellFormedInput, overloadGuard(deps), v1Routes(deps));
  // Streamable-HTTP MCP for agents: its tools call /v1 with the caller's own key.
  app.use(mcpRoutes(deps));
  // The knowledge-graph browser exists only when its secret is configured: otherwise /kg is an unknown route (404).
  if (deps.config.WEB_APP_BOOTSTRAP_SECRET) app.use('/kg', kgRoutes(deps));
  app.use(unknownRoute);
  app.use(errorHandler());
  return app;
}
