/**
 * Which route a request target names: the API and control routes, the control API also under the
 * API base URL (`/v1/_emulator/…`, so a client only needs MQ_API_URL), 405 with the methods that
 * would do. Plain paths skip URL parsing and are answered from a bounded cache.
 */
import { apiRoutes } from './api-routes.js';
import { controlRoutes } from './control-routes.js';
import { HttpError } from './respond.js';
import type { Route } from './route.js';

const ROUTES: Route[] = [...apiRoutes, ...controlRoutes];

export interface Found {
  route?: Route;
  params: string[];
  /** The methods the path takes, when the request's is not one of them. */
  allowed: string[];
}

function findRoute(pathname: string, method: string): Found {
  const allowed: string[] = [];
  for (const r of ROUTES) {
    const m = r.path.exec(pathname);
    if (!m) continue;
    if (r.method === method || (method === 'HEAD' && r.method === 'GET'))
      return { route: r, params: m.slice(1), allowed };
    allowed.push(r.method);
  }
  return { params: [], allowed };
}

/**
 * A request target that `new URL` would give back unchanged as its pathname: a single leading
 * slash, then only unreserved characters and slashes (no dot segments, escapes, query or
 * fragment). Such targets skip URL parsing and are routed from the cache.
 */
const PLAIN_PATH = /^\/(?!\/)[A-Za-z0-9_~/-]*$/;
/** Routing answers for plain paths, by method and path (bounded: cleared when full). */
const ROUTE_CACHE_MAX = 256;

export function parseUrl(target: string): URL {
  try {
    return new URL(target, 'http://emulator.invalid');
  } catch {
    throw new HttpError(400, `malformed request path: ${target}`);
  }
}

export class Router {
  private readonly cache = new Map<string, Found>();

  /** The route of a request; `url` is parsed here unless the target is a plain path (then on first use). */
  routeOf(target: string, method: string): Found & { pathname: string; url?: URL } {
    let url: URL | undefined;
    let pathname: string;
    if (PLAIN_PATH.test(target)) pathname = target;
    else {
      url = parseUrl(target);
      pathname = url.pathname;
    }
    const local = pathname.startsWith('/v1/_emulator/') ? pathname.slice(3) : pathname;
    if (url) return { ...findRoute(local, method), pathname, url };
    const key = `${method} ${local}`;
    let found = this.cache.get(key);
    if (!found) {
      if (this.cache.size >= ROUTE_CACHE_MAX) this.cache.clear();
      found = findRoute(local, method);
      this.cache.set(key, found);
    }
    return { route: found.route, params: found.params, allowed: found.allowed, pathname };
  }
}
