import { pathOfRoute, routeLabel, routeLiterals, shapeOfUnmatchedPath } from './route-path';

const TOKEN = 'eyJ2IjoxLCJhbGciOiJIUzI1NiIsImtpZCI6ImsxIn0.' + 'Q'.repeat(43);

describe('pathOfRoute', () => {
  it('fills the template from the decoded parameters, credential-named ones redacted whatever they hold', () => {
    expect(pathOfRoute('/v1/interrupts/:token/outcome', { token: 'short' })).toBe(
      '/v1/interrupts/[redacted]/outcome',
    );
    expect(pathOfRoute('/v1/runs/:runId/interrupts/:nodeId\\:claim', { runId: 'r-1', nodeId: 'gate' })).toBe(
      '/v1/runs/r-1/interrupts/gate:claim',
    );
  });

  it('URL-encodes other values and still cuts a token put where an id goes', () => {
    expect(pathOfRoute('/v1/runs/:runId', { runId: 'a b/c' })).toBe('/v1/runs/a%20b%2Fc');
    expect(pathOfRoute('/v1/runs/:runId', { runId: TOKEN })).not.toContain(TOKEN.slice(0, 24));
  });

  it('leaves a parameter the router did not fill as its name', () => {
    expect(pathOfRoute('/v1/runs/:runId', {})).toBe('/v1/runs/:runId');
  });
});

describe('shapeOfUnmatchedPath', () => {
  const literals = routeLiterals([
    '/v1/runs/:runId',
    '/v1/interrupts/:token',
    '/v1/runs/:runId/interrupts/:nodeId\\:claim',
    '/{*path}',
  ]);

  it('keeps only exact literal route words', () => {
    expect([...literals].sort()).toEqual(['interrupts', 'runs', 'v1']);
    expect(shapeOfUnmatchedPath(`/v1/interrupts/${TOKEN}/x?token=1`, literals)).toBe('/v1/interrupts/*/*');
    expect(shapeOfUnmatchedPath(`/V1/INTERRUPTS/%65${TOKEN.slice(1)}`, literals)).toBe('/*/*/*');
    expect(shapeOfUnmatchedPath('/', literals)).toBe('/');
  });
});

describe('routeLabel', () => {
  it('drops the escape of a literal colon and keeps the parameters', () => {
    expect(routeLabel('/v1/interrupts\\:bulk-resolve')).toBe('/v1/interrupts:bulk-resolve');
    expect(routeLabel('/v1/runs/:runId/interrupts/:nodeId\\:claim')).toBe(
      '/v1/runs/:runId/interrupts/:nodeId:claim',
    );
    expect(routeLabel('/v1/runs/:runId')).toBe('/v1/runs/:runId');
  });
});
