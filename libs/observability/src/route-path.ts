import { isSecretName, REDACTED, redactSecrets } from './secret-redaction';

/** A route parameter in an Express 5 template: `:name`, or `\:` for a literal colon (`:nodeId\:claim`). */
const PARAM = /(\\)?:([A-Za-z_$][A-Za-z0-9_$]*)/g;

/**
 * The path a log line, a span or a metric records for a request the router matched: the matched
 * template (`/v1/interrupts/:token`) with each parameter filled in from what the router decoded,
 * never the raw path. A parameter named like a credential (`token`, `*secret`, …; see
 * {@link isSecretName}) is `[redacted]` whatever it holds; any other (string) value is URL-encoded and still
 * passes through {@link redactSecrets}, so a token sent where a run id goes is cut too. Because it is
 * built from the match, an odd spelling of the path (`/V1/INTERRUPTS/%65yJ…`) cannot carry a
 * credential past it.
 *
 * @example pathOfRoute('/v1/runs/:runId/interrupts/:nodeId\\:claim', { runId: 'r-1', nodeId: 'gate' })
 *   // '/v1/runs/r-1/interrupts/gate:claim'
 */
export function pathOfRoute(template: string, params: Readonly<Record<string, unknown>>): string {
  return template.replace(PARAM, (_m, escaped: string | undefined, name: string) => {
    if (escaped) return `:${name}`;
    if (isSecretName(name)) return REDACTED;
    const value = params[name];
    if (typeof value !== 'string') return `:${name}`;
    return redactSecrets(encodeURIComponent(value));
  });
}

/**
 * The route a metric label, a span's `http.route` and an access line record: the matched template
 * as a person writes it, with Express' escape of a literal colon removed
 * (`/v1/interrupts\\:bulk-resolve` → `/v1/interrupts:bulk-resolve`); parameters stay `:name`.
 *
 * @example routeLabel('/v1/runs/:runId/interrupts/:nodeId\\:claim') // '/v1/runs/:runId/interrupts/:nodeId:claim'
 */
export function routeLabel(template: string): string {
  return template.replace(/\\:/g, ':');
}

/**
 * The literal segments of route templates (`v1`, `runs`, `interrupts`, …): what
 * {@link shapeOfUnmatchedPath} may show of a path no route matched.
 */
export function routeLiterals(templates: Iterable<string>): Set<string> {
  const literals = new Set<string>();
  for (const template of templates) {
    for (const segment of template.split('/')) {
      if (segment !== '' && !/[:*{}()\\]/.test(segment)) literals.add(segment);
    }
  }
  return literals;
}

/**
 * The shape of a path no route matched, safe to record: each segment that is, exactly, a literal
 * segment of a served route is kept and every other one is `*`, so whatever a client put there (a
 * token in any spelling included) never reaches a log, a span or a metric. The query is dropped.
 *
 * @example shapeOfUnmatchedPath('/v1/INTERRUPTS/%65yJhbGc…', new Set(['v1', 'interrupts'])) // `/v1` then two `*` segments
 */
export function shapeOfUnmatchedPath(rawPath: string, literals: ReadonlySet<string>): string {
  const path = rawPath.split('?')[0] ?? '';
  return path
    .split('/')
    .map((segment) => (segment === '' || literals.has(segment) ? segment : '*'))
    .join('/');
}
