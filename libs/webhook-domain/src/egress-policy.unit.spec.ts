import { checkResolvedAddresses, checkWebhookUrl, deniedRange, parseAllowedHosts } from './egress-policy';

const none = parseAllowedHosts(undefined);

describe('webhook egress policy (webhooks.md §SSRF protection, RFC 0093 §A)', () => {
  it.each([
    ['10.0.0.1', 'private-use'],
    ['172.16.5.4', 'private-use'],
    ['172.31.255.255', 'private-use'],
    ['192.168.1.1', 'private-use'],
    ['127.0.0.1', 'loopback'],
    ['127.9.9.9', 'loopback'],
    ['169.254.169.254', 'link-local'],
    ['0.0.0.0', 'this-host'],
    ['0.1.0.0', 'this-network'],
    ['100.64.0.1', 'shared-address-space'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'link-local'],
    ['fd00::1', 'unique-local'],
    ['fc00::abcd', 'unique-local'],
    ['::ffff:10.0.0.1', 'ipv4-mapped'],
    ['::ffff:127.0.0.1', 'ipv4-mapped'],
    ['::ffff:a9fe:a9fe', 'ipv4-mapped'],
    ['64:ff9b::a9fe:a9fe', 'nat64-of-link-local'],
    ['not-an-ip', 'unparseable'],
  ])('%s is denied (%s)', (address, range) => {
    expect(deniedRange(address)).toBe(range);
  });

  it.each([
    '93.184.216.34',
    '8.8.8.8',
    '172.32.0.1',
    '2606:2800:220:1:248:1893:25c8:1946',
    '64:ff9b::808:808',
  ])('%s is public', (a) => {
    expect(deniedRange(a)).toBeNull();
  });

  it('refuses non-https, credentials, denied names and literal private addresses at parse time', () => {
    expect(checkWebhookUrl('not a url', none)).toEqual({
      refusal: expect.objectContaining({ reason: 'malformed_url' }),
    });
    expect(checkWebhookUrl('http://example.com/', none)).toEqual({
      refusal: expect.objectContaining({ reason: 'scheme_not_https' }),
    });
    expect(checkWebhookUrl('ftp://example.com/', none)).toEqual({
      refusal: expect.objectContaining({ reason: 'scheme_not_https' }),
    });
    expect(checkWebhookUrl('https://u:p@example.com/', none)).toEqual({
      refusal: expect.objectContaining({ reason: 'malformed_url' }),
    });
    expect(checkWebhookUrl('https://localhost/', none)).toEqual({
      refusal: expect.objectContaining({ reason: 'denied_host' }),
    });
    expect(checkWebhookUrl('https://metadata.google.internal/x', none)).toEqual({
      refusal: expect.objectContaining({ reason: 'denied_host' }),
    });
    expect(checkWebhookUrl('https://169.254.169.254/computeMetadata/v1/', none)).toEqual({
      refusal: expect.objectContaining({ reason: 'denied_address', range: 'link-local' }),
    });
    expect(checkWebhookUrl('https://[::1]:8443/', none)).toEqual({
      refusal: expect.objectContaining({ reason: 'denied_address', range: 'loopback' }),
    });
    expect(checkWebhookUrl('https://example.com/hook', none)).toEqual({
      target: expect.objectContaining({ hostname: 'example.com' }),
    });
  });

  it('an allow-listed name may use http and private addresses; matching is by the name as written', () => {
    const allowed = parseAllowedHosts(' 127.0.0.1, LocalHost ,');
    expect([...allowed]).toEqual(['127.0.0.1', 'localhost']);
    expect(checkWebhookUrl('http://127.0.0.1:9/x', allowed)).toEqual({
      target: expect.objectContaining({ hostname: '127.0.0.1' }),
    });
    expect(checkWebhookUrl('http://localhost:9/x', allowed)).toEqual({
      target: expect.objectContaining({ hostname: 'localhost' }),
    });
    expect(checkResolvedAddresses('localhost', ['127.0.0.1'], allowed)).toBeNull();
    // A public name that resolves to an allowed address is still refused: rebinding gains nothing.
    expect(checkResolvedAddresses('rebind.example', ['127.0.0.1'], allowed)).toEqual(
      expect.objectContaining({ reason: 'denied_address' }),
    );
    expect(checkWebhookUrl('http://10.0.0.1/', allowed)).toEqual({
      refusal: expect.objectContaining({ reason: 'scheme_not_https' }),
    });
  });

  it('every resolved address must pass; none at all is refused the same way, naming no address', () => {
    expect(checkResolvedAddresses('a.example', ['93.184.216.34'], none)).toBeNull();
    const refused = { reason: 'denied_address', detail: 'host a.example is not a public address' };
    expect(checkResolvedAddresses('a.example', ['93.184.216.34', '10.1.2.3'], none)).toEqual(refused);
    expect(checkResolvedAddresses('a.example', [], none)).toEqual(refused);
  });
});

describe('a refusal of a local receiver names the opt-in, WEBHOOK_ALLOW_HOSTS', () => {
  it.each([
    ['http://127.0.0.1:9000/hook', 'scheme http is not https'],
    ['https://127.0.0.1:9000/hook', 'address 127.0.0.1 is not a public address (loopback)'],
    ['https://localhost/hook', 'host localhost is denied'],
    ['https://192.168.1.20/hook', 'address 192.168.1.20 is not a public address (private-use)'],
  ])('%s', (url, said) => {
    const checked = checkWebhookUrl(url, none);
    expect(checked).toEqual({ refusal: expect.objectContaining({ detail: expect.stringContaining(said) }) });
    expect(JSON.stringify(checked)).toContain('WEBHOOK_ALLOW_HOSTS');
  });

  it('says nothing of it for a public range nor for a host name that resolved to a local address', () => {
    expect(JSON.stringify(checkWebhookUrl('https://198.51.100.9/', none))).not.toContain(
      'WEBHOOK_ALLOW_HOSTS',
    );
    expect(checkResolvedAddresses('internal.example', ['127.0.0.1'], none)).toEqual({
      reason: 'denied_address',
      detail: 'host internal.example is not a public address',
    });
  });

  it('an allow-listed host takes http and its local address', () => {
    expect(checkWebhookUrl('http://127.0.0.1:9000/hook', parseAllowedHosts('127.0.0.1'))).toHaveProperty(
      'target',
    );
  });
});
