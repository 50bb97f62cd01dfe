import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { PAGE_VOCABULARY_ASSET, pageVocabularyModule } from '../common/page-vocabulary';

/** One static file of the signed-link page. */
export interface LinkPageAsset {
  readonly contentType: string;
  readonly body: Buffer;
}

/**
 * The signed-link page's files: `apps/gateway/link-ui/` (plain HTML, CSS and ES modules, no build
 * step). The folder sits next to `src/` and `dist/`, so the same relative path works from the
 * compiled app and from ts-jest.
 */
export const LINK_UI_DIR = resolve(__dirname, '../../link-ui');

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
};

/** The only files served: a fixed list, so no request path ever reaches the file system. */
export const LINK_ASSET_NAMES = [
  'index.html',
  'link.css',
  'app.js',
  'link-api.js',
  'link-views.js',
  'link-conversation.js',
] as const;

/**
 * Reads every page file once, and adds the vocabulary module the page imports (rendered from the
 * contracts, see {@link pageVocabularyModule}); `dir` is overridable for tests.
 * @throws when a listed file is missing (a broken checkout fails at startup, not per request).
 */
export function loadLinkPageAssets(dir: string = LINK_UI_DIR): ReadonlyMap<string, LinkPageAsset> {
  const assets = new Map<string, LinkPageAsset>();
  for (const name of LINK_ASSET_NAMES) {
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
 * Headers of the page and its files. The page lives at the signed link itself, so its URL is a
 * bearer credential: `no-referrer` keeps it out of every `Referer`, `no-store` out of caches; the
 * CSP allows only this origin (no inline script, no CDN, no form posts, no framing), so a string in
 * an interrupt's payload cannot run or send the token anywhere.
 */
export const LINK_PAGE_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
  Vary: 'Accept, OpenWOP-Version',
};
