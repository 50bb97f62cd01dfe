import { SchemaValidationError, type CommandReply } from '@openwop/contracts';
import { DomainError } from '@openwop/kernel';
import { CommandSeam, refusingDomainErrors, type CommandRoutes } from './command-seam';
import type { OutboxRelay } from './outbox';

// The seam's routing and failure rule without a database: the `run` routes and the hooks. The
// decide path (decideOnce in a transaction) is covered on Postgres and Kafka in command-seam.int.spec.ts.

type Ping = { id: string; type: 'ping'; data: { n: number } };
type Look = { id: string; type: 'look'; data: { replay?: boolean } };
type TestCommand = Ping | Look;

function parse(value: unknown): TestCommand {
  const v = value as Partial<TestCommand> | null;
  if (!v || typeof v.id !== 'string' || (v.type !== 'ping' && v.type !== 'look')) {
    throw new SchemaValidationError('TestCommand', [{ path: '/', message: 'not a test command' }]);
  }
  return v as TestCommand;
}

const message = (value: unknown) => ({ topic: 'test.commands', key: 'run-1', value });

function seamWith(routes: CommandRoutes<TestCommand>, relay?: Pick<OutboxRelay, 'kick'>) {
  const warnings: string[] = [];
  const seam = new CommandSeam<TestCommand>({
    consumer: 'test',
    parse,
    routes,
    warn: (line) => warnings.push(line),
    ...(relay ? { relay: relay as OutboxRelay } : {}),
  });
  return { seam, warnings };
}

describe('CommandSeam', () => {
  it('refuses a command that breaks the contract with validation_error, and logs it', async () => {
    const { seam, warnings } = seamWith({
      ping: { run: async () => ({ ok: true, data: 'pong' }) },
      look: { run: async () => ({ ok: true, data: 'seen' }) },
    });
    const reply = await seam.handle(message({ type: 'ping' }));
    expect(reply).toMatchObject({ ok: false, error: { code: 'validation_error' } });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('test.commands');
  });

  it('routes by type; a DomainError becomes the refusal; anything else throws (the bus retries)', async () => {
    const { seam } = seamWith({
      ping: {
        run: async (c) => {
          if (c.data.n === 1) throw new DomainError('run_terminal', 'already done', { runId: 'run-1' });
          if (c.data.n === 2) throw new Error('database went away');
          return { ok: true, data: c.data.n };
        },
      },
      look: { run: async () => ({ ok: true, data: 'seen' }) },
    });
    expect(await seam.handle(message({ id: 'a', type: 'ping', data: { n: 0 } }))).toEqual({
      ok: true,
      data: 0,
    });
    expect(await seam.handle(message({ id: 'b', type: 'look', data: {} }))).toEqual({
      ok: true,
      data: 'seen',
    });
    expect(await seam.handle(message({ id: 'c', type: 'ping', data: { n: 1 } }))).toEqual({
      ok: false,
      error: { code: 'run_terminal', message: 'already done', details: { runId: 'run-1' } },
    });
    await expect(seam.handle(message({ id: 'd', type: 'ping', data: { n: 2 } }))).rejects.toThrow(
      'database went away',
    );
  });

  it('answers a shortcut before the route, and kicks the relay after a run route that asks', async () => {
    const kicks: number[] = [];
    const ran: string[] = [];
    const { seam } = seamWith(
      {
        ping: { run: async (c) => (ran.push(c.id), { ok: true, data: 'ran' }), kick: true },
        look: {
          shortcut: async (c) => (c.data.replay ? { ok: true, data: 'replayed' } : undefined),
          run: async (c) => (ran.push(c.id), { ok: true, data: 'looked' }),
        },
      },
      { kick: async () => void kicks.push(1) },
    );
    expect(await seam.handle(message({ id: 'l1', type: 'look', data: { replay: true } }))).toEqual({
      ok: true,
      data: 'replayed',
    });
    expect(await seam.handle(message({ id: 'l2', type: 'look', data: {} }))).toEqual({
      ok: true,
      data: 'looked',
    });
    expect(kicks).toHaveLength(0);
    expect(await seam.handle(message({ id: 'p1', type: 'ping', data: { n: 0 } }))).toEqual({
      ok: true,
      data: 'ran',
    });
    expect(kicks).toHaveLength(1);
    expect(ran).toEqual(['l2', 'p1']);
  });

  it('fails loudly when a decide route has no DataSource', async () => {
    const { seam } = seamWith({
      ping: { decide: async () => ({ ok: true, data: null }) },
      look: { run: async () => ({ ok: true, data: null }) },
    });
    await expect(seam.handle(message({ id: 'x', type: 'ping', data: { n: 0 } }))).rejects.toThrow(
      'no DataSource',
    );
  });

  it('hands a set-aside command to its route’s unapplied hook; an unreadable one has nothing to settle', async () => {
    const settled: [string, string, string | undefined][] = [];
    const { seam } = seamWith({
      ping: {
        run: async () => ({ ok: true, data: null }),
        unapplied: async (c, notice) => void settled.push([c.id, notice.cause, notice.code]),
      },
      look: { run: async () => ({ ok: true, data: null }) },
    });
    await seam.unapplied(message({ id: 'p', type: 'ping', data: { n: 3 } }), {
      cause: 'exhausted',
      reason: 'Error: boom',
      attempts: 5,
    });
    await seam.unapplied(message({ id: 'q', type: 'ping', data: { n: 3 } }), {
      cause: 'refused',
      reason: 'refused validation_error',
      attempts: 1,
      code: 'validation_error',
    });
    await seam.unapplied(message({ id: 'l', type: 'look', data: {} }), {
      cause: 'exhausted',
      reason: 'x',
      attempts: 5,
    });
    await seam.unapplied(message('not json at all'), {
      cause: 'undecodable',
      reason: 'SyntaxError',
      attempts: 0,
    });
    expect(settled).toEqual([
      ['p', 'exhausted', undefined],
      ['q', 'refused', 'validation_error'],
    ]);
  });
});

describe('refusingDomainErrors', () => {
  it('turns a DomainError into the refusal reply and lets other errors through', async () => {
    const ok: CommandReply = { ok: true, data: 1 };
    expect(await refusingDomainErrors(async () => ok)).toBe(ok);
    expect(
      await refusingDomainErrors(async () => {
        throw new DomainError('not_found', 'nope');
      }),
    ).toEqual({ ok: false, error: { code: 'not_found', message: 'nope' } });
    await expect(
      refusingDomainErrors(async () => {
        throw new TypeError('bug');
      }),
    ).rejects.toThrow(TypeError);
  });
});
