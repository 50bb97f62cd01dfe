import { INTERRUPT_KINDS, TERMINAL_RUN_STATUSES } from '@openwop/contracts';

/** The name both browser pages import the vocabulary by (`./vocabulary.js` beside their modules). */
export const PAGE_VOCABULARY_ASSET = 'vocabulary.js';

/**
 * The wire vocabulary the browser pages use (the admin page and the signed-link page), as a plain
 * ES module rendered from `@openwop/contracts` when the gateway starts. The pages have no build step,
 * so instead of a copy of the lists that could drift, each serves this module as its
 * `vocabulary.js` and imports the lists from it.
 */
export function pageVocabularyModule(): string {
  const constant = (doc: string, name: string, values: readonly string[]) =>
    `/** ${doc} */\nexport const ${name} = Object.freeze(${JSON.stringify(values)});\n`;
  return [
    '// Served by the gateway from @openwop/contracts (apps/gateway/src/common/page-vocabulary.ts).\n',
    constant('The interrupt kinds (`interrupt.md`, RFC 0094).', 'INTERRUPT_KINDS', INTERRUPT_KINDS),
    constant('Run statuses after which nothing changes.', 'TERMINAL_RUN_STATUSES', TERMINAL_RUN_STATUSES),
  ].join('\n');
}
