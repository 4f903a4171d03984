import { createRequire } from 'node:module';
import { trace, type Tracer } from '@opentelemetry/api';
import type * as OtlpHttp from '@opentelemetry/exporter-trace-otlp-http';
import type { NodeSDK as NodeSDKType, resources, tracing } from '@opentelemetry/sdk-node';
import type * as SdkNode from '@opentelemetry/sdk-node';
import type * as TemporalOtel from '@temporalio/interceptors-opentelemetry';
import type { WorkflowClientInterceptor } from '@temporalio/client';
import type { InjectedSinks, WorkerInterceptors } from '@temporalio/worker';
import type { Config } from '../config/config.js';

// Loaded only when tracing is on: the OpenTelemetry SDK takes seconds to import, which every start would otherwise pay.
const requireLazily = createRequire(import.meta.url);

export const TRACER_NAME = 'mnemo';

/** Traces of this process: the tracer for request spans and the Temporal interceptors that carry a trace through workflows. */
export interface Tracing {
  tracer: Tracer;
  /** For the Temporal client: a workflow started inside a span carries it in its headers. */
  clientInterceptors: WorkflowClientInterceptor[];
  /** For the worker: workflow and activity spans, children of the span that started the workflow. */
  workerInterceptors: Required<Pick<WorkerInterceptors, 'activity' | 'workflowModules'>>;
  /** Workflow spans are made in the workflow sandbox and leave it through this sink. */
  workerSinks: InjectedSinks<{ exporter: TemporalOtel.OpenTelemetryWorkflowExporter }>;
  /** Flushes what is buffered and unregisters the SDK. */
  shutdown(): Promise<void>;
}

/**
 * `@temporalio/interceptors-opentelemetry` builds workflow spans with its own
 * OpenTelemetry 1.x (parentSpanId, instrumentationLibrary); the 2.x exporter
 * reads parentSpanContext and instrumentationScope. This processor translates
 * before handing a span on, so workflow spans join the same trace.
 */
class WorkflowSpanTranslator implements tracing.SpanProcessor {
  constructor(
    private readonly next: tracing.SpanProcessor,
    private readonly resource: resources.Resource,
  ) {}

  onStart(): void {}

  onEnd(span: tracing.ReadableSpan): void {
    const legacy = span as tracing.ReadableSpan & { parentSpanId?: string; instrumentationLibrary?: tracing.ReadableSpan['instrumentationScope'] };
    const context = span.spanContext();
    const parentSpanContext =
      legacy.parentSpanContext ?? (legacy.parentSpanId ? { traceId: context.traceId, spanId: legacy.parentSpanId, traceFlags: context.traceFlags } : undefined);
    this.next.onEnd({
      ...legacy,
      spanContext: () => context,
      parentSpanContext,
      instrumentationScope: legacy.instrumentationScope ?? legacy.instrumentationLibrary ?? { name: '@temporalio/interceptor-workflow' },
      resource: this.resource,
      droppedAttributesCount: legacy.droppedAttributesCount ?? 0,
      droppedEventsCount: legacy.droppedEventsCount ?? 0,
      droppedLinksCount: legacy.droppedLinksCount ?? 0,
    });
  }

  forceFlush(): Promise<void> {
    return this.next.forceFlush();
  }

  shutdown(): Promise<void> {
    // The wrapped processor belongs to the SDK, which shuts it down.
    return Promise.resolve();
  }
}

/**
 * Starts OpenTelemetry tracing when OTEL_EXPORTER_OTLP_ENDPOINT is set (else
 * undefined: no SDK, no cost). Spans go to `<endpoint>/v1/traces` over
 * OTLP/HTTP. The SDK registers the process's tracer provider and context
 * manager (OpenTelemetry's own globals), so it is started once per process,
 * by buildDeps, and stopped by its close().
 */
export function startTracing(config: Pick<Config, 'OTEL_EXPORTER_OTLP_ENDPOINT'>, serviceName = 'mnemo'): Tracing | undefined {
  const endpoint = config.OTEL_EXPORTER_OTLP_ENDPOINT;
  if (!endpoint) return undefined;
  const { NodeSDK, resources: res, tracing: trc } = requireLazily('@opentelemetry/sdk-node') as typeof SdkNode;
  const { OTLPTraceExporter } = requireLazily('@opentelemetry/exporter-trace-otlp-http') as typeof OtlpHttp;
  const otel = requireLazily('@temporalio/interceptors-opentelemetry') as typeof TemporalOtel;
  const resource = res.resourceFromAttributes({ 'service.name': serviceName });
  const processor = new trc.BatchSpanProcessor(new OTLPTraceExporter({ url: `${endpoint.replace(/\/+$/, '')}/v1/traces` }), { scheduledDelayMillis: 1_000 });
  const sdk: NodeSDKType = new NodeSDK({ resource, spanProcessors: [processor], instrumentations: [], autoDetectResources: false });
  sdk.start();
  const workflowSpans = new WorkflowSpanTranslator(processor, resource);
  return {
    tracer: trace.getTracer(TRACER_NAME),
    clientInterceptors: [new otel.OpenTelemetryWorkflowClientInterceptor()],
    workerInterceptors: {
      workflowModules: [requireLazily.resolve('@temporalio/interceptors-opentelemetry/lib/workflow-interceptors')],
      activity: [(ctx) => ({ inbound: new otel.OpenTelemetryActivityInboundInterceptor(ctx), outbound: new otel.OpenTelemetryActivityOutboundInterceptor(ctx) })],
    },
    // The sink's resource parameter is typed with the interceptors' own OpenTelemetry 1.x; the translator replaces it anyway.
    workerSinks: { exporter: otel.makeWorkflowExporter(workflowSpans as never, resource as never) },
    shutdown: () => sdk.shutdown(),
  };
}
