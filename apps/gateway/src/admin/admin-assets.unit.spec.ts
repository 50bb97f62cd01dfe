import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ADMIN_ASSET_NAMES, loadAdminAssets } from './admin-assets';

describe('admin page assets', () => {
  const assets = loadAdminAssets();

  it('loads every listed file with its content type', () => {
    expect([...assets.keys()]).toEqual([...ADMIN_ASSET_NAMES, 'vocabulary.js']);
    expect(assets.get('index.html')?.contentType).toBe('text/html; charset=utf-8');
    expect(assets.get('app.js')?.contentType).toBe('text/javascript; charset=utf-8');
    expect(assets.get('admin.css')?.contentType).toBe('text/css; charset=utf-8');
  });

  it('references only files it serves: index.html links and every ES module import', () => {
    const referenced = new Set<string>();
    const html = assets.get('index.html')!.body.toString('utf8');
    for (const m of html.matchAll(/(?:src|href)="\/admin\/assets\/([^"]+)"/g)) referenced.add(m[1]!);
    for (const [name, asset] of assets) {
      if (!name.endsWith('.js')) continue;
      for (const m of asset.body.toString('utf8').matchAll(/from '\.\/([^']+)'/g)) referenced.add(m[1]!);
    }
    expect(referenced.size).toBeGreaterThan(3);
    expect([...referenced].filter((r) => !assets.has(r))).toEqual([]);
  });

  it('has no inline script or CDN reference (the CSP allows only this origin)', () => {
    const html = assets.get('index.html')!.body.toString('utf8');
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    for (const asset of assets.values())
      expect(asset.body.toString('utf8')).not.toMatch(/https?:\/\/(?!www\.w3\.org)/);
  });

  it('fails at load when a listed file is missing', () => {
    const dir = mkdtempSync(join(tmpdir(), 'admin-ui-'));
    writeFileSync(join(dir, 'index.html'), '<!doctype html>');
    expect(() => loadAdminAssets(dir)).toThrow(/admin\.css/);
  });
});
