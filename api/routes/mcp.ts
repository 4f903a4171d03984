import { isIPv6 } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import express, { Router, type Request, type RequestHandler } from 'express';
import type { Deps } from '../../core/deps.js';
import { httpMnemoApi } from '../../mcp/httpMnemoApi.js';
import { createMnemoMcpServer } from '../../mcp/server.js';
import { authenticate } from '../auth.js';
import { HttpError } from '../errors.js';

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/** The tools act with the caller's own key, so only a bearer key will do here (not the /kg page's cookie). */
const requireBearer: RequestHandler = (req, _res, next) => {
  if (!BEARER.test(req.headers.authorization ?? '')) return next(new HttpError('unauthorized', 'Missing bearer key: send Authorization: Bearer <key>'));
  next();
};

/**
 * This API as reached over the socket the request came in on: the tools call `/v1` there, so auth,
 * scoping, validation and overload behaviour are those of `/v1` by construction.
 */
function loopbackUrl(req: Request): string {
  const host = req.socket.localAddress ?? '127.0.0.1';
  return `http://${isIPv6(host) ? `[${host}]` : host}:${req.socket.localPort}`;
}

const methodNotAllowed: RequestHandler = (_req, res) => {
  res
    .status(405)
    .set('Allow', 'POST')
    .json({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed: this MCP endpoint is stateless and takes POST only' }, id: null });
};

/**
 * `POST /mcp`: Mnemo's MCP tools over streamable HTTP, stateless (a server and transport per request),
 * behind the same bearer authentication as `/v1`.
 */
export function mcpRoutes(deps: Deps): Router {
  const router = Router();
  router.use('/mcp', requireBearer, authenticate(deps));
  router.post('/mcp', express.json({ limit: deps.config.BODY_LIMIT, strict: true }), async (req, res) => {
    const apiKey = BEARER.exec(req.headers.authorization ?? '')![1];
    const server = createMnemoMcpServer(httpMnemoApi({ baseUrl: loopbackUrl(req), apiKey, requestId: String(req.id) }));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  });
  router.all('/mcp', methodNotAllowed);
  return router;
}
