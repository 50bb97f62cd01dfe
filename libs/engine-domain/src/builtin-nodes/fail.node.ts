import { defineNode, NodeError } from '../node';

/** `core.fail`: fails with `conformance_test_failure` (`conformance/fixtures.md` §NodeModule registration). */
export const failNode = defineNode({
  typeId: 'core.fail',
  async execute() {
    throw new NodeError('conformance_test_failure', 'Intentional conformance failure');
  },
});
