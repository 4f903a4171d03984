import type { Router } from 'express';

/** One route of a router: method (upper case) and path with its `:params`, relative to where the router is mounted. */
export interface CatalogRoute {
  method: string;
  path: string;
}

interface Layer {
  route?: { path: string | string[]; methods: Record<string, boolean> };
  handle: { stack?: Layer[] };
  rawPath?: string;
  slash?: boolean;
}

/**
 * Every route a router serves, found by walking Express's layer stack (mounted
 * sub-routers included), so suites that must cover "every /v1 route" pick up
 * routes added later without a hand-kept list.
 */
export function listRoutes(router: Router, prefix = ''): CatalogRoute[] {
  const routes: CatalogRoute[] = [];
  for (const layer of (router as unknown as { stack: Layer[] }).stack) {
    if (layer.route) {
      const paths = Array.isArray(layer.route.path) ? layer.route.path : [layer.route.path];
      for (const method of Object.keys(layer.route.methods)) {
        if (method === '_all') continue;
        for (const path of paths) routes.push({ method: method.toUpperCase(), path: `${prefix}${path}` });
      }
    } else if (layer.handle.stack) {
      const mount = layer.slash || !layer.rawPath ? '' : layer.rawPath;
      routes.push(...listRoutes(layer.handle as unknown as Router, `${prefix}${mount}`));
    }
  }
  const seen = new Set<string>();
  return routes.filter((r) => {
    const key = `${r.method} ${r.path}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** The `:name` parameters of a route path, in order. */
export function pathParams(path: string): string[] {
  return [...path.matchAll(/:([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => m[1]);
}

/** A string as a path segment, byte by byte (works for lone surrogates, which encodeURIComponent refuses). */
export function encodeSegment(value: string): string {
  return [...Buffer.from(value, 'utf8')]
    .map((b) => (/[A-Za-z0-9\-_.~]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase().padStart(2, '0')}`))
    .join('');
}

/** The route's path with each `:param` replaced by its (encoded) value. */
export function fillPath(path: string, values: Record<string, string>): string {
  return path.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, (_m, name: string) => encodeSegment(values[name] ?? ''));
}
