import { defineNode, NodeError } from '../node';

/**
 * `conformance.artifact.emit` (fixtures.md, `conformance-artifact-emit`): produces one artifact of
 * type `config.artifactType` whose JSON payload is `config.data`, and emits `artifact.created` with
 * `artifactId`, `artifactType`, `nodeId` and the payload as `data`, which
 * `GET /v1/runs/{runId}/artifacts/{artifactId}` reads back. The id is `config.artifactId`, else one
 * derived from the node and its visit, so a re-execution names the same artifact.
 */
export const artifactEmitNode = defineNode({
  typeId: 'conformance.artifact.emit',
  async execute(ctx) {
    const artifactType = ctx.config.artifactType;
    if (typeof artifactType !== 'string' || artifactType === '') {
      throw new NodeError(
        'validation_error',
        `node ${ctx.nodeId} needs config.artifactType, a non-empty string`,
      );
    }
    const configured = ctx.config.artifactId;
    const artifactId =
      typeof configured === 'string' && configured !== ''
        ? configured
        : `${ctx.nodeId}-artifact-${ctx.visit}`;
    ctx.emit('artifact.created', {
      artifactId,
      artifactType,
      nodeId: ctx.nodeId,
      data: ctx.config.data ?? null,
    });
    return { artifactId };
  },
});
