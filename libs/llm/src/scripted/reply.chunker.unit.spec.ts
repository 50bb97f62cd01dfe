import { chunkReply, countWords } from './reply.chunker';

describe('chunkReply', () => {
  it('cuts words with their surrounding whitespace, losing nothing', () => {
    expect(chunkReply('  Hello,  brave new\nworld! ', 'word')).toEqual([
      '  Hello,  ',
      'brave ',
      'new\n',
      'world! ',
    ]);
    expect(chunkReply('   ', 'word')).toEqual(['   ']);
  });

  it('cuts characters by code point', () => {
    expect(chunkReply('a👋b', 'char')).toEqual(['a', '👋', 'b']);
  });

  it('cuts fixed-size pieces by code point', () => {
    expect(chunkReply('abcdefg', 3)).toEqual(['abc', 'def', 'g']);
    expect(chunkReply('👋👋👋', 2)).toEqual(['👋👋', '👋']);
  });

  it('has no chunks for an empty reply', () => {
    expect(chunkReply('', 'word')).toEqual([]);
    expect(chunkReply('', 'char')).toEqual([]);
    expect(chunkReply('', 4)).toEqual([]);
  });

  it.each(['word', 'char', 1, 5] as const)('joins back to the reply (%s)', (size) => {
    const text = ' Multi-line\r\n reply  with 🎉 emoji\t';
    expect(chunkReply(text, size).join('')).toBe(text);
  });
});

describe('countWords', () => {
  it('counts whitespace-separated words', () => {
    expect(countWords(' a b\n c ')).toBe(3);
    expect(countWords('')).toBe(0);
  });
});
