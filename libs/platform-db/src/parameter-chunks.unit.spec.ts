import { chunksWithinParameterLimit, MAX_BIND_PARAMETERS, valuesTuples } from './parameter-chunks';

describe('chunksWithinParameterLimit', () => {
  const rows = (n: number) => Array.from({ length: n }, (_, i) => i);

  it('keeps a batch that fits as one chunk, the same rows (a normal write stays one statement)', () => {
    const batch = rows(100);
    const chunks = chunksWithinParameterLimit(batch, 6, 4);
    expect(chunks).toHaveLength(1);
    expect(chunks[0]).toBe(batch);
  });

  it('splits a batch past the limit into chunks that each fit, in order, losing no row', () => {
    const batch = rows(16_000); // 96,000 parameters at 6 a row: the 8,000-step run's events
    const chunks = chunksWithinParameterLimit(batch, 6, 4);
    expect(chunks.length).toBeGreaterThan(1);
    for (const chunk of chunks) expect(chunk.length * 6 + 4).toBeLessThanOrEqual(MAX_BIND_PARAMETERS);
    expect(chunks.flat()).toEqual(batch);
  });

  it('fills a chunk up to the limit exactly, reserved parameters included', () => {
    const perChunk = Math.floor((MAX_BIND_PARAMETERS - 9) / 6);
    expect(chunksWithinParameterLimit(rows(perChunk), 6, 9)).toHaveLength(1);
    expect(chunksWithinParameterLimit(rows(perChunk + 1), 6, 9).map((c) => c.length)).toEqual([perChunk, 1]);
  });

  it('answers one empty chunk for an empty batch', () => {
    expect(chunksWithinParameterLimit([], 6)).toEqual([[]]);
  });

  it('refuses a row shape that can never fit', () => {
    expect(() => chunksWithinParameterLimit(rows(1), 10, 0, 5)).toThrow(RangeError);
    expect(() => chunksWithinParameterLimit(rows(1), 0)).toThrow(RangeError);
  });
});

describe('valuesTuples', () => {
  it('numbers the placeholders of each row from the offset, with their casts', () => {
    expect(valuesTuples(2, ['', '::jsonb'], 3)).toBe('($4, $5::jsonb), ($6, $7::jsonb)');
  });
});
