import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { GATEWAY_ROUTES, type GatewayRoute } from '../discovery/gateway-routes.constants';
import { ApiError } from './api.error';
import {
  contractOf,
  negotiate,
  pathSpaceOf,
  rootSegmentOf,
  VERSION_HEADER,
  type ProtocolMajor,
} from './protocol-version';

const MAJOR = Symbol('openwop.protocolMajor');

type NegotiatedRequest = Request & { [MAJOR]?: ProtocolMajor };

/**
 * The major `req` is served under, as {@link protocolNegotiation} decided; `1` for a request it
 * never saw (a unit test calling a controller directly).
 */
export function requestMajorOf(req: Request): ProtocolMajor {
  return (req as NegotiatedRequest)[MAJOR] ?? 1;
}

/** Controller parameter: the major the request is served under (see {@link requestMajorOf}). */
export const RequestMajor = createParamDecorator(
  (_data: unknown, ctx: ExecutionContext): ProtocolMajor =>
    requestMajorOf(ctx.switchToHttp().getRequest<Request>()),
);

/** The first path segments of the route table, split into protocol roots (under `/v1/`) and the rest. */
export function pathRootsOf(routes: readonly GatewayRoute[]): {
  readonly v1: ReadonlySet<string>;
  readonly nonProtocol: ReadonlySet<string>;
} {
  const v1 = new Set<string>();
  const nonProtocol = new Set<string>();
  for (const route of routes) {
    // A conformance seam is no manifest operation and needs no twin (versioning.md §1.2).
    if (route.testSeam) continue;
    if (route.path.startsWith('/v1/')) v1.add(rootSegmentOf(route.path.slice('/v1'.length)));
    else if (route.path !== '/.well-known/openwop') nonProtocol.add(rootSegmentOf(route.path));
  }
  return { v1, nonProtocol };
}

const ROOTS = pathRootsOf(GATEWAY_ROUTES);

/**
 * Express middleware, before every route: negotiates the major of each request
 * (`protocol-version.ts`, ADR 0041) and
 * - answers a refused `OpenWOP-Version` (`406 protocol_version_unsupported`,
 *   `400 protocol_version_mismatch`) in the error envelope;
 * - serves an unversioned path as its `/v1/…` twin: the URL is rewritten to `/v1` + path, so one
 *   controller per operation serves both majors and reads which one from {@link RequestMajor};
 *   a path no route serves ends in the router's `404 not_found` like any other;
 * - sets `OpenWOP-Version: <major>.<minor>` on every protocol response, errors included, and
 *   removes it again from a page (`text/html`), which is no protocol response (versioning.md §1.4).
 */
export function protocolNegotiation(req: Request, res: Response, next: NextFunction): void {
  const path = req.path;
  const space = pathSpaceOf(path, ROOTS.v1, ROOTS.nonProtocol);
  const outcome = negotiate(space, req.headers[VERSION_HEADER]);
  if (outcome.kind === 'non-protocol') {
    next();
    return;
  }
  const major = outcome.major;
  (req as NegotiatedRequest)[MAJOR] = major;
  res.setHeader('OpenWOP-Version', contractOf(major));
  dropVersionFromPages(res);
  if (outcome.kind === 'refuse') {
    next(new ApiError(outcome.code, outcome.message, outcome.details));
    return;
  }
  if (space === 'unversioned') req.url = `/v1${req.url}`;
  next();
}

/** A `text/html` answer (the signed link's page) names no protocol version: the header goes. */
function dropVersionFromPages(res: Response): void {
  const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => Response;
  res.writeHead = ((...args: unknown[]) => {
    const type = res.getHeader('content-type');
    if (typeof type === 'string' && type.toLowerCase().startsWith('text/html'))
      res.removeHeader('OpenWOP-Version');
    return writeHead(...args);
  }) as Response['writeHead'];
}
