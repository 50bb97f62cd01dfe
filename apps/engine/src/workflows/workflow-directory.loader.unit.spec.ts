import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CONFORMANCE_FIXTURES } from '@openwop/contracts';
import { loadWorkflowDirectory } from './workflow-directory.loader';

describe('loadWorkflowDirectory', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'wf-dir-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  const noop = CONFORMANCE_FIXTURES.find((f) => f.id === 'conformance-noop')!;

  it('given JSON and YAML definitions, returns them in file-name order and ignores other files', async () => {
    await writeFile(join(dir, 'b.json'), JSON.stringify({ ...noop, id: 'from-json' }));
    await writeFile(
      join(dir, 'a.yaml'),
      `id: from-yaml\nname: Y\nversion: "1"\nnodes: ${JSON.stringify(noop.nodes)}\nedges: []\ntriggers: []\nvariables: []\nmetadata: {}\nsettings: {}\n`,
    );
    await writeFile(join(dir, 'README.md'), '# not a workflow');
    expect((await loadWorkflowDirectory(dir)).map((w) => w.id)).toEqual(['from-yaml', 'from-json']);
  });

  it('given a definition this host cannot run, fails naming the file and the field', async () => {
    await writeFile(
      join(dir, 'bad.json'),
      JSON.stringify({ ...noop, nodes: [{ ...noop.nodes[0], typeId: 'vendor.x' }] }),
    );
    await expect(loadWorkflowDirectory(dir)).rejects.toThrow(/bad\.json .*\/nodes\/0\/typeId/);
  });

  it('given malformed YAML, fails naming the file', async () => {
    await writeFile(join(dir, 'broken.yml'), 'id: [unclosed');
    await expect(loadWorkflowDirectory(dir)).rejects.toThrow(/broken\.yml is not valid yml/);
  });
});
