import type { Express } from 'express';

export interface ServedRoute {
  method: string;
  /** In OpenAPI form: `/v1/memories/{id}`. */
  path: string;
}

interface Layer {
  rawPath?: string | string[];
  route?: { path: string | string[]; methods: Record<string, boolean> };
  handle: { stack?: Layer[] };
}

const asList = (p: string | string[] | undefined): string[] => (p === undefined ? [''] : Array.isArray(p) ? p : [p]);

/** Express `:id` segments as OpenAPI `{id}`. */
export const toOpenApiPath = (expressPath: string): string => expressPath.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

function walk(stack: Layer[], prefix: string, out: ServedRoute[]): void {
  for (const layer of stack) {
    if (layer.route) {
      for (const path of asList(layer.route.path)) {
        for (const method of Object.keys(layer.route.methods)) {
          if (method !== '_all') out.push({ method, path: toOpenApiPath(prefix + path) });
        }
      }
    } else if (layer.handle.stack) {
      for (const mount of asList(layer.rawPath)) walk(layer.handle.stack, prefix + (mount === '/' ? '' : mount), out);
    }
  }
}

/**
 * Every route an Express app serves (method and path), found by walking its
 * router and the routers mounted in it, however deep. Static file handlers and
 * plain middleware are not routes and are not listed.
 */
export function servedRoutes(app: Express): ServedRoute[] {
  const out: ServedRoute[] = [];
  walk((app as unknown as { router: { stack: Layer[] } }).router.stack, '', out);
  return out;
}
