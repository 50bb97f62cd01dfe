import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { collect } from './collect.util';
import type { ChatRequest } from './llm-provider.port';
import { createLlmProvider } from './provider.factory';
import { ScriptedProvider } from './scripted.provider';
import { OpenAiTestServer, streamReply } from './testing/openai-test.server';

let dir: string;
let server: OpenAiTestServer;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'llm-script-'));
  server = await OpenAiTestServer.start();
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await server.stop();
});

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

const ask = (content: string, agentId: string): ChatRequest => ({
  messages: [{ role: 'user', content }],
  metadata: { agentId },
});

describe('createLlmProvider from the environment', () => {
  it('loads a YAML script for LLM_PROVIDER=scripted', async () => {
    const path = file(
      'panel.yaml',
      [
        'chunkSize: char',
        'default: "Pass."',
        'replies:',
        '  - agentId: critic',
        '    match: /budget/i',
        '    reply: Too expensive.',
        '  - agentId: optimist',
        '    reply: ["Yes!", ""]',
      ].join('\n'),
    );
    const provider = createLlmProvider({ LLM_PROVIDER: 'scripted', LLM_SCRIPT_FILE: path });
    expect(provider.name).toBe('scripted');
    expect((await collect(provider.complete(ask('The BUDGET', 'critic')))).text).toBe('Too expensive.');
    expect((await collect(provider.complete(ask('x', 'optimist')))).text).toBe('Yes!');
    expect((await collect(provider.complete(ask('x', 'optimist')))).text).toBe('');
    expect((await collect(provider.complete(ask('x', 'critic')))).text).toBe('Pass.');
  });

  it('loads a JSON script and names the file when it is invalid', async () => {
    const good = file('good.json', JSON.stringify({ replies: [{ reply: 'from json' }] }));
    expect((await collect(ScriptedProvider.fromFile(good).complete(ask('x', 'a')))).text).toBe('from json');
    const bad = file('bad.json', JSON.stringify({ replies: [{ reply: 42 }] }));
    expect(() => createLlmProvider({ LLM_PROVIDER: 'scripted', LLM_SCRIPT_FILE: bad })).toThrow(
      `${bad}: replies[0]: "reply" must be a string or a non-empty list of strings`,
    );
    const broken = file('broken.json', '{');
    expect(() => ScriptedProvider.fromFile(broken)).toThrow(`${broken} cannot be parsed`);
  });

  it('talks to OPENAI_BASE_URL with OPENAI_MODEL and OPENAI_API_KEY', async () => {
    server.respond(streamReply(['from ', 'the server']));
    const provider = createLlmProvider({
      OPENAI_BASE_URL: server.baseUrl,
      OPENAI_MODEL: 'env-model',
      OPENAI_API_KEY: 'sk-env-key',
    });
    expect((await collect(provider.complete(ask('x', 'a')))).text).toBe('from the server');
    expect(server.requests[0]?.body).toMatchObject({ model: 'env-model' });
    expect(server.requests[0]?.headers.authorization).toBe('Bearer sk-env-key');
  });
});
