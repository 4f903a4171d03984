import type { IncomingMessage, ServerResponse } from 'node:http';
import { context, propagation, SpanKind, SpanStatusCode, trace, type Tracer } from '@opentelemetry/api';

type Handler<Req extends IncomingMessage> = (req: Req, res: ServerResponse, next: () => void) => void;

/**
 * A server span per HTTP request (continuing a caller's `traceparent`), active
 * while the request is handled: the Temporal client interceptor then carries
 * it into the workflows the request starts, so one trace spans request,
 * workflow and activities. `routeOf` names the span once the route is known.
 */
export function requestSpans<Req extends IncomingMessage & { method?: string }>(tracer: Tracer, routeOf: (req: Req) => string): Handler<Req> {
  return (req, res, next) => {
    const parent = propagation.extract(context.active(), req.headers);
    const span = tracer.startSpan(req.method ?? 'HTTP', { kind: SpanKind.SERVER, attributes: { 'http.request.method': req.method ?? '' } }, parent);
    const active = trace.setSpan(parent, span);
    res.once('finish', () => {
      const route = routeOf(req);
      span.updateName(`${req.method} ${route}`);
      span.setAttributes({ 'http.route': route, 'http.response.status_code': res.statusCode });
      if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    });
    // Body parsing continues in stream callbacks, outside this call: the emitters are bound so the span stays active there.
    context.bind(active, req);
    context.bind(active, res);
    context.with(active, next);
  };
}
