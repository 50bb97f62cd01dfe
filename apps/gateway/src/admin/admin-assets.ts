import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { PAGE_VOCABULARY_ASSET, pageVocabularyModule } from '../common/page-vocabulary';

/** One static file of the admin page. */
export interface AdminAsset {
  readonly contentType: string;
  readonly body: Buffer;
}

/**
 * The admin page's files: `apps/gateway/admin-ui/` (plain HTML, CSS and ES modules, no build
 * step). The folder sits next to `src/` and `dist/`, so the same relative path works from the
 * compiled app and from ts-jest.
 */
export const ADMIN_UI_DIR = resolve(__dirname, '../../admin-ui');

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.svg': 'image/svg+xml',
};

/** The only files served: a fixed list, so no request path ever reaches the file system. */
export const ADMIN_ASSET_NAMES = [
  'index.html',
  'admin.css',
  'app.js',
  'api.js',
  'dom.js',
  'pending-list.js',
  'interrupt-view.js',
  'interrupt-links.js',
  'claims.js',
  'answer-card.js',
  'answer-forms.js',
  'conversation.js',
  'favicon.svg',
] as const;

/**
 * Reads every admin file once, and adds the vocabulary module the pages import (rendered from the
 * contracts, see {@link pageVocabularyModule}); `dir` is overridable for tests.
 * @throws when a listed file is missing (a broken checkout should fail at startup, not per request).
 */
export function loadAdminAssets(dir: string = ADMIN_UI_DIR): ReadonlyMap<string, AdminAsset> {
  const assets = new Map<string, AdminAsset>();
  for (const name of ADMIN_ASSET_NAMES) {
    const ext = name.slice(name.lastIndexOf('.'));
    assets.set(name, {
      contentType: CONTENT_TYPES[ext] ?? 'application/octet-stream',
      body: readFileSync(resolve(dir, name)),
    });
  }
  assets.set(PAGE_VOCABULARY_ASSET, {
    contentType: CONTENT_TYPES['.js']!,
    body: Buffer.from(pageVocabularyModule()),
  });
  return assets;
}

/**
 * Headers of every admin response. The CSP allows only this origin (no inline script, no CDN), so
 * an injected string in a payload cannot run; `no-referrer` keeps token links out of Referer.
 */
export const ADMIN_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-cache',
};
