import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ADMIN_ASSET_NAMES, loadAdminAssets } from '../admin/admin-assets';
import { LINK_ASSET_NAMES, LINK_PAGE_SECURITY_HEADERS, loadLinkPageAssets } from './link-page.assets';

describe('signed-link page assets', () => {
  const assets = loadLinkPageAssets();
  const text = (name: string) => assets.get(name)!.body.toString('utf8');

  it('loads every listed file with its content type', () => {
    expect([...assets.keys()]).toEqual([...LINK_ASSET_NAMES, 'vocabulary.js']);
    expect(assets.get('index.html')?.contentType).toBe('text/html; charset=utf-8');
    expect(assets.get('app.js')?.contentType).toBe('text/javascript; charset=utf-8');
    expect(assets.get('link.css')?.contentType).toBe('text/css; charset=utf-8');
  });

  it('references only files it serves, and of the admin page only modules and exports that exist', () => {
    const own = new Set<string>();
    for (const m of text('index.html').matchAll(/(?:src|href)="\/link\/assets\/([^"]+)"/g)) own.add(m[1]!);
    const shared: { names: string[]; file: string }[] = [];
    for (const name of LINK_ASSET_NAMES.filter((n) => n.endsWith('.js'))) {
      for (const m of text(name).matchAll(/import \{([^}]+)\} from '([^']+)'/g)) {
        const from = m[2]!;
        if (from.startsWith('./')) own.add(from.slice(2));
        else
          shared.push({
            names: m[1]!
              .split(',')
              .map((s) => s.trim())
              .filter(Boolean),
            file: from,
          });
      }
    }
    expect(own.size).toBeGreaterThan(3);
    expect([...own].filter((r) => !assets.has(r))).toEqual([]);
    // The page shares the admin page's DOM helpers and answer forms read-only: each import must
    // still be there.
    const admin = loadAdminAssets();
    expect(shared.map((s) => s.file)).toEqual(
      expect.arrayContaining(['/admin/assets/dom.js', '/admin/assets/answer-forms.js']),
    );
    for (const { names, file } of shared) {
      const name = /^\/admin\/assets\/(.+)$/.exec(file)?.[1];
      expect(ADMIN_ASSET_NAMES).toContain(name);
      const source = admin.get(name!)!.body.toString('utf8');
      for (const n of names)
        expect(source).toMatch(new RegExp(`export (?:async )?(?:function|const|class) ${n}\\b`));
    }
  });

  it('has no inline script, no other origin, and never reads anything but its own path for the token', () => {
    expect(text('index.html')).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    for (const asset of assets.values()) expect(asset.body.toString('utf8')).not.toMatch(/https?:\/\//);
    for (const name of LINK_ASSET_NAMES) {
      expect(text(name)).not.toMatch(/innerHTML|localStorage|sessionStorage|document\.cookie|authorization/i);
    }
    // The admin page's modules the page runs too (and what they import) hold no credential either.
    const admin = loadAdminAssets();
    for (const name of ['answer-forms.js', 'dom.js']) {
      const code = admin
        .get(name)!
        .body.toString('utf8')
        .replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '');
      expect(code).not.toMatch(
        /innerHTML|localStorage|sessionStorage|document\.cookie|authorization|from '\.\/api\.js'/i,
      );
    }
    expect(text('link-api.js')).toContain("credentials: 'omit'");
    expect(text('link-api.js')).toContain("referrerPolicy: 'no-referrer'");
  });

  it('serves with a self-only CSP, no referrer and no caching', () => {
    expect(LINK_PAGE_SECURITY_HEADERS).toMatchObject({
      'Referrer-Policy': 'no-referrer',
      'Cache-Control': 'no-store',
      Vary: 'Accept, OpenWOP-Version',
    });
    const csp = LINK_PAGE_SECURITY_HEADERS['Content-Security-Policy']!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toMatch(/unsafe|https?:/);
  });

  it('fails at load when a listed file is missing', () => {
    const dir = mkdtempSync(join(tmpdir(), 'link-ui-'));
    writeFileSync(join(dir, 'index.html'), '<!doctype html>');
    expect(() => loadLinkPageAssets(dir)).toThrow(/link\.css/);
  });
});
