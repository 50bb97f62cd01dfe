import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/** One file of the API reference page. */
export interface ReferenceAsset {
  readonly contentType: string;
  readonly body: Buffer | string;
}

/** The page: Swagger UI from the `swagger-ui-dist` package reading `/v1/openapi.json`; nothing from another origin. */
const INDEX_HTML = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <title>OpenWOP host API reference</title>
    <link rel="stylesheet" href="/docs/swagger-ui.css" />
    <link rel="icon" type="image/png" href="/docs/favicon-32x32.png" />
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="/docs/swagger-ui-bundle.js"></script>
    <script src="/docs/init.js"></script>
  </body>
</html>
`;

/** Starts Swagger UI on this host's document (a file, so the page needs no inline script). */
const INIT_JS = `window.ui = SwaggerUIBundle({ url: '/v1/openapi.json', dom_id: '#swagger-ui', deepLinking: true, validatorUrl: null });\n`;

/** Files copied from `swagger-ui-dist`, by the name they are served under. */
const PACKAGE_FILES: Readonly<Record<string, string>> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

/**
 * Headers of every reference response: scripts and styles of this origin only (Swagger UI sets
 * inline styles on elements, hence `'unsafe-inline'` for styles alone); the page fetches only
 * `/v1/openapi.json` and whatever the reader tries out against this same host.
 */
export const REFERENCE_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'public, max-age=300',
};

/**
 * Reads the page's files once: the index and initializer above, the rest from the installed
 * `swagger-ui-dist`.
 * @throws when the package or one of its files is missing (fail at startup, not per request).
 */
export function loadReferenceAssets(): ReadonlyMap<string, ReferenceAsset> {
  const dist = dirname(require.resolve('swagger-ui-dist/package.json'));
  const assets = new Map<string, ReferenceAsset>([
    ['index.html', { contentType: 'text/html; charset=utf-8', body: INDEX_HTML }],
    ['init.js', { contentType: 'text/javascript; charset=utf-8', body: INIT_JS }],
  ]);
  for (const [name, contentType] of Object.entries(PACKAGE_FILES))
    assets.set(name, { contentType, body: readFileSync(resolve(dist, name)) });
  return assets;
}
