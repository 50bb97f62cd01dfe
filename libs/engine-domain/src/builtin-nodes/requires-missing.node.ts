import { defineNode } from '../node';

/**
 * `conformance.requiresMissing` (`conformance/fixtures.md` §`conformance-capability-missing`): needs
 * the spec-reserved capability `conformance.never-provided`, which no host provides, so the engine
 * refuses to execute it (`capability_not_provided`). `execute` is never reached.
 */
export const requiresMissingNode = defineNode({
  typeId: 'conformance.requiresMissing',
  requires: ['conformance.never-provided'],
  async execute() {
    return {};
  },
});
