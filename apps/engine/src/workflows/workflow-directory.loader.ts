import { readdir, readFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { parse } from 'yaml';
import {
  validateWorkflowDefinition,
  withDefinitionDefaults,
  type WorkflowDefinition,
} from '@openwop/contracts';

const EXTENSIONS = ['.json', '.yaml', '.yml'];

/**
 * Reads every workflow definition (`*.json`, `*.yaml`, `*.yml`) in `dir`, in file-name order, and
 * validates each as `workflow.register` would.
 * @throws Error naming the file and its violations: a bad seed folder stops the boot.
 */
export async function loadWorkflowDirectory(dir: string): Promise<WorkflowDefinition[]> {
  const files = (await readdir(dir)).filter((f) => EXTENSIONS.includes(extname(f).toLowerCase())).sort();
  const definitions: WorkflowDefinition[] = [];
  for (const file of files) {
    const path = join(dir, file);
    const text = await readFile(path, 'utf8');
    let value: unknown;
    try {
      value = withDefinitionDefaults(
        extname(file).toLowerCase() === '.json' ? JSON.parse(text) : parse(text),
      );
    } catch (e) {
      throw new Error(
        `WORKFLOWS_DIR: ${path} is not valid ${extname(file).slice(1)}: ${e instanceof Error ? e.message : String(e)}`,
      );
    }
    const problems = validateWorkflowDefinition(value);
    if (problems.length) {
      throw new Error(
        `WORKFLOWS_DIR: ${path} is not a workflow this host runs: ${problems.map((p) => `${p.path || '/'} ${p.message}`).join('; ')}`,
      );
    }
    definitions.push(value as WorkflowDefinition);
  }
  return definitions;
}
