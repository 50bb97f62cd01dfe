import type { ChunkSize } from './script.types';

/**
 * Cuts a reply into the deltas a scripted provider streams; joined, they give back `text`.
 * `word` keeps leading and trailing whitespace with the word it touches, `char` and a number
 * count Unicode code points (a surrogate pair is never split). An empty reply has no chunks.
 */
export function chunkReply(text: string, size: ChunkSize): string[] {
  if (text === '') return [];
  if (size === 'word') return text.match(/\s*\S+\s*/gu) ?? [text];
  const points = Array.from(text);
  if (size === 'char') return points;
  const chunks: string[] = [];
  for (let i = 0; i < points.length; i += size) chunks.push(points.slice(i, i + size).join(''));
  return chunks;
}

/** A rough, deterministic token count: whitespace-separated words. */
export function countWords(text: string): number {
  return text.split(/\s+/u).filter((word) => word.length > 0).length;
}
