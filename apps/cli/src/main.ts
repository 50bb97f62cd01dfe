#!/usr/bin/env node
import { runCli } from './cli';

// `wop`: see `wop --help`. Exits once everything written reached the OS, whatever handles remain.
runCli(process.argv.slice(2), {
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  cwd: process.cwd(),
})
  .then(async (code) => {
    await Promise.all(
      [process.stdout, process.stderr].map((s) => new Promise<void>((r) => s.write('', () => r()))),
    );
    process.exit(code);
  })
  .catch((e: unknown) => {
    console.error(e);
    process.exit(3);
  });
