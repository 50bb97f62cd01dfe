import { DataDirLockedError } from '@openwop/platform-db';
import { PortInUseError, startBanner, startupFailureText } from './startup';

describe('startBanner', () => {
  it('names the API, its reference page (/docs), the admin page, the key and the CLI', () => {
    const banner = startBanner({ publicUrl: 'http://127.0.0.1:8080/', dataDir: '/d/pgdata' }, 1234, {
      WOP_DEV_API_KEY_FILE: '/k/dev-api-key',
    });
    expect(banner.split('\n')).toEqual([
      'OpenWOP host (embedded) ready in 1234 ms',
      '  API         http://127.0.0.1:8080  (discovery: http://127.0.0.1:8080/.well-known/openwop)',
      '  API docs    http://127.0.0.1:8080/docs  (OpenAPI: http://127.0.0.1:8080/v1/openapi.json)',
      '  admin page  http://127.0.0.1:8080/admin',
      '  API key     /k/dev-api-key (the wop CLI reads it)',
      '  CLI         npx wop --help',
      '  data        /d/pgdata',
    ]);
  });
});

describe('startupFailureText', () => {
  it('is the message alone for the refusals a person can act on, and the stack for anything else', () => {
    const port = new PortInUseError(
      '127.0.0.1:8080 is in use — is a host already running at http://127.0.0.1:8080?',
    );
    expect(startupFailureText(port)).toBe(port.message);
    const locked = new DataDirLockedError('/d/pgdata', 42);
    expect(startupFailureText(locked)).toBe(locked.message);
    expect(startupFailureText(locked)).not.toContain('    at ');
    const bug = new TypeError('x is undefined');
    expect(startupFailureText(bug)).toContain('    at ');
    expect(startupFailureText('plain')).toBe('plain');
  });
});
