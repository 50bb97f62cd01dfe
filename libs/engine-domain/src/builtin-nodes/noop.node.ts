import { defineNode } from '../node';

/** `core.noop`: completes at once with no outputs. */
export const noopNode = defineNode({
  typeId: 'core.noop',
  async execute() {
    return {};
  },
});
