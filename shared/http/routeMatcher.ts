import type { HttpMethod, Route } from './route.js';

/** What a matcher needs of a route: its method and its path template. */
export type RouteKey = Pick<Route, 'method' | 'path'>;

export type RouteMatch<R extends RouteKey = Route> = { kind: 'found'; route: R; params: Record<string, string> } | { kind: 'wrong_method' } | { kind: 'none' };

interface CompiledRoute<R extends RouteKey> {
  route: R;
  pattern: RegExp;
  paramNames: string[];
}

/** Matches paths against API Gateway style templates (`/v2/jobs/{job_id}`), literal segments first. */
export class RouteMatcher<R extends RouteKey = Route> {
  private readonly compiled: CompiledRoute<R>[];

  constructor(routes: readonly R[]) {
    this.compiled = routes.map((route) => compile(route)).sort((a, b) => literalSegments(b.route.path) - literalSegments(a.route.path));
  }

  match(method: string, path: string): RouteMatch<R> {
    let pathMatched = false;
    for (const { route, pattern, paramNames } of this.compiled) {
      const found = pattern.exec(path);
      if (!found) continue;
      if (route.method !== (method as HttpMethod)) {
        pathMatched = true;
        continue;
      }
      const params: Record<string, string> = {};
      try {
        paramNames.forEach((name, index) => {
          params[name] = decodeURIComponent(found[index + 1] as string);
        });
      } catch {
        return { kind: 'none' }; // a malformed percent-encoding names no resource
      }
      return { kind: 'found', route, params };
    }
    return pathMatched ? { kind: 'wrong_method' } : { kind: 'none' };
  }
}

/**
 * The path parameters of a path under one route's template, or null when it does not fit.
 * For events that carry none: a Lambda function URL passes the raw path only.
 */
export function pathParametersOf(route: Route, path: string): Record<string, string> | null {
  const match = new RouteMatcher([route]).match(route.method, path);
  return match.kind === 'found' ? match.params : null;
}

function compile<R extends RouteKey>(route: R): CompiledRoute<R> {
  const paramNames: string[] = [];
  const source = route.path
    .split('/')
    .map((segment) => {
      const param = /^\{(\w+)\}$/.exec(segment);
      if (!param) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      paramNames.push(param[1] as string);
      return '([^/]+)';
    })
    .join('/');
  return { route, pattern: new RegExp(`^${source}/?$`), paramNames };
}

function literalSegments(path: string): number {
  return path.split('/').filter((segment) => segment && !segment.startsWith('{')).length;
}
