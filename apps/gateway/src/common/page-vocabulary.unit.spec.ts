import { Script } from 'node:vm';
import { INTERRUPT_KINDS, TERMINAL_RUN_STATUSES } from '@openwop/contracts';
import { pageVocabularyModule } from './page-vocabulary';

/** The module's `export const NAME = Object.freeze([...])` lines, read back as data. */
function exportsOf(source: string): Record<string, unknown> {
  const found: Record<string, unknown> = {};
  for (const m of source.matchAll(/^export const (\w+) = Object\.freeze\((.*)\);$/gm))
    found[m[1]!] = JSON.parse(m[2]!);
  return found;
}

describe('the browser pages’ vocabulary module', () => {
  it('exports the contracts’ interrupt kinds and terminal run statuses, and nothing else', () => {
    expect(exportsOf(pageVocabularyModule())).toEqual({
      INTERRUPT_KINDS: [...INTERRUPT_KINDS],
      TERMINAL_RUN_STATUSES: [...TERMINAL_RUN_STATUSES],
    });
  });

  it('is an ES module a browser can import: only exports and comments, no import of its own', () => {
    const code = pageVocabularyModule()
      .split('\n')
      .filter((line) => line.trim() !== '' && !line.startsWith('//') && !line.startsWith('/**'));
    expect(code.every((line) => line.startsWith('export const '))).toBe(true);
    // Without the `export` keywords it is a script: it must compile.
    expect(() => new Script(pageVocabularyModule().replace(/^export /gm, ''))).not.toThrow();
  });
});
