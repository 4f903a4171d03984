import { Router, type Request, type RequestHandler } from 'express';
import type { Deps } from '../../core/deps.js';
import type { Metrics } from '../../core/metrics/metrics.js';
import { authenticate, requireRole } from '../auth.js';

export interface MetricsRouteOptions {
  /** A worker's Temporal SDK Prometheus endpoint whose text is appended (npm start: the in-process worker's). */
  workerMetricsUrl?: string;
  /** This process's own families summed over every API process (api/cluster/: API_PROCESSES > 1); unset: this process's. */
  processText?: () => Promise<string>;
}

const MATCHED_ROUTE = Symbol('matchedRoute');
type TimedRequest = Request & { [MATCHED_ROUTE]?: string };

/**
 * Remembers the full template of the route that handled the request when the
 * router sets `req.route`: by the time the response finishes after an error,
 * the routers have restored `req.baseUrl` to the app's, so it can no longer be
 * joined afterwards.
 */
function captureRoute(req: TimedRequest): void {
  let route: unknown;
  Object.defineProperty(req, 'route', {
    configurable: true,
    enumerable: true,
    get: () => route,
    set(value: { path?: unknown } | undefined) {
      route = value;
      if (typeof value?.path === 'string') req[MATCHED_ROUTE] = `${req.baseUrl}${value.path}`;
    },
  });
}

/** The template of the route that handled `req` (`/v1/memories/:id`), or `unmatched`; needs httpMetrics installed before the routers. */
export function matchedRoute(req: Request): string {
  return (req as TimedRequest)[MATCHED_ROUTE] ?? 'unmatched';
}

/** Times every request into mnemo_http_request_duration_seconds, labelled by the route template (`/v1/memories/:id`), never the raw URL: label values stay bounded. */
export function httpMetrics(metrics: Metrics): RequestHandler {
  return (req: TimedRequest, res, next) => {
    const end = metrics.httpDuration.startTimer();
    captureRoute(req);
    res.once('finish', () => end({ method: req.method, route: matchedRoute(req), status: String(res.statusCode) }));
    next();
  };
}

const WORKER_SCRAPE_TIMEOUT_MS = 2_000;

/** The worker endpoint's text, or a comment saying why it is missing (a scrape never fails because of it). */
async function workerText(url: string): Promise<string> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(WORKER_SCRAPE_TIMEOUT_MS) });
    if (!res.ok) return `# worker metrics at ${url} answered ${res.status}\n`;
    return await res.text();
  } catch (err) {
    return `# worker metrics at ${url} unavailable: ${(err as Error).message}\n`;
  }
}

/**
 * `GET /metrics`: Prometheus text. Needs an operator or admin key unless
 * METRICS_PUBLIC=true (a scraper on a private network without a key).
 */
export function metricsRoutes(deps: Deps, options: MetricsRouteOptions = {}): Router {
  const router = Router();
  const guard: RequestHandler[] = deps.config.METRICS_PUBLIC
    ? []
    : [
        authenticate(deps),
        (req, _res, next) => {
          requireRole(req, 'operator');
          next();
        },
      ];
  router.get('/metrics', ...guard, async (_req, res) => {
    const [own, worker] = await Promise.all([deps.metrics.text(options.processText), options.workerMetricsUrl ? workerText(options.workerMetricsUrl) : '']);
    res.set('Content-Type', deps.metrics.contentType).send(worker ? `${own}\n${worker}` : own);
  });
  return router;
}
