import { checkResolvedAddresses, checkWebhookUrl, deniedRange, parseAllowedHosts } from './egress-policy';
import { DENIED_IPV4_BLOCKS, DENIED_IPV6_BLOCKS } from './special-purpose-addresses';

const none = parseAllowedHosts(undefined);

/**
 * Every block of the IANA special-purpose registries that is not globally reachable (RFC 6890 and
 * its updates), written out here by hand, independently of the table: each range with several
 * spellings of addresses inside it, and its neighbours just outside, which are public.
 */
describe('the denied-address table (IANA special-purpose registries)', () => {
  it.each([
    // [range name, addresses inside it]
    ['this-network', ['0.1.2.3', '0.255.255.255']],
    ['this-host', ['0.0.0.0']],
    [
      'private-use',
      [
        '10.0.0.0',
        '10.20.30.40',
        '10.255.255.255',
        '172.16.0.0',
        '172.31.255.255',
        '192.168.0.1',
        '192.168.255.255',
      ],
    ],
    ['shared-address-space', ['100.64.0.0', '100.100.100.100', '100.127.255.255']],
    ['loopback', ['127.0.0.1', '127.0.0.0', '127.255.255.254']],
    ['link-local', ['169.254.169.254', '169.254.0.0', '169.254.255.255']],
    ['ietf-protocol-assignments', ['192.0.0.11', '192.0.0.100', '192.0.0.255']],
    ['ipv4-service-continuity', ['192.0.0.0', '192.0.0.7']],
    ['ipv4-dummy', ['192.0.0.8']],
    ['anycast-pcp', ['192.0.0.9']],
    ['anycast-turn', ['192.0.0.10']],
    ['nat64-dns64-discovery', ['192.0.0.170', '192.0.0.171']],
    [
      'documentation',
      [
        '192.0.2.0',
        '192.0.2.1',
        '192.0.2.255',
        '198.51.100.7',
        '198.51.100.255',
        '203.0.113.0',
        '203.0.113.99',
      ],
    ],
    ['anycast-as112', ['192.31.196.1', '192.175.48.6']],
    ['anycast-amt', ['192.52.193.1']],
    ['deprecated-6to4-relay', ['192.88.99.1']],
    ['benchmarking', ['198.18.0.0', '198.18.0.1', '198.19.255.255', '198.19.0.42']],
    ['multicast', ['224.0.0.1', '239.255.255.250', '233.252.0.1']],
    ['reserved', ['240.0.0.1', '250.1.2.3', '255.255.255.254']],
    ['limited-broadcast', ['255.255.255.255']],
  ])('IPv4 %s', (range, addresses) => {
    for (const a of addresses) expect({ a, range: deniedRange(a) }).toEqual({ a, range });
  });

  it.each([
    ['unspecified', ['::', '0:0:0:0:0:0:0:0', '0000:0000:0000:0000:0000:0000:0000:0000', '[::]']],
    ['loopback', ['::1', '0:0:0:0:0:0:0:1', '0000::0001', '[::1]', '::0.0.0.1']],
    ['ipv4-compatible', ['::10.0.0.1', '::8.8.8.8', '::a00:1', '0:0:0:0:0:0:808:808']],
    [
      'ipv4-mapped',
      [
        '::ffff:127.0.0.1',
        '::ffff:7f00:1',
        '::FFFF:7F00:0001',
        '0:0:0:0:0:ffff:7f00:1',
        '0000:0000:0000:0000:0000:FFFF:127.0.0.1',
        '[::ffff:169.254.169.254]',
        '::ffff:a9fe:a9fe',
        '::ffff:10.0.0.1',
        // Refused whatever they carry: the public receiver is written as its IPv4 address.
        '::ffff:8.8.8.8',
        '::ffff:0808:0808',
        '::ffff:93.184.216.34',
      ],
    ],
    ['ipv4-translated', ['::ffff:0:127.0.0.1', '::ffff:0:7f00:1', '0:0:0:0:ffff:0:808:808']],
    ['nat64-local-use', ['64:ff9b:1::1', '64:ff9b:1:ffff::8.8.8.8', '0064:FF9B:0001:0000::1']],
    ['discard-only', ['100::', '100::1', '100:0:0:0:ffff:ffff:ffff:ffff']],
    ['dummy-prefix', ['100:0:0:1::1', '100::1:0:0:0:1']],
    ['ietf-protocol-assignments', ['2001:5::1', '2001:1::4', '2001:1ff:ffff::1', '2001:0100::']],
    ['teredo', ['2001::1', '2001:0:4136:e378:8000:63bf:3fff:fdd2', '2001:0000::']],
    ['anycast-pcp', ['2001:1::1']],
    ['anycast-turn', ['2001:1::2']],
    ['anycast-dns-sd-srp', ['2001:1::3']],
    ['benchmarking', ['2001:2::1', '2001:2:0:ffff::1']],
    ['anycast-amt', ['2001:3::1', '2001:3:ffff::1']],
    ['anycast-as112', ['2001:4:112::1', '2620:4f:8000::53']],
    ['deprecated-orchid', ['2001:10::1', '2001:1f:ffff::1']],
    ['orchid-v2', ['2001:20::1', '2001:2f::1']],
    ['drone-remote-id', ['2001:30::1', '2001:3f::1']],
    [
      'documentation',
      [
        '2001:db8::1',
        '2001:DB8:0:0:8:800:200C:417A',
        '2001:0db8:ffff:ffff:ffff:ffff:ffff:ffff',
        '3fff::1',
        '3fff:fff:ffff::1',
      ],
    ],
    ['6to4', ['2002::1', '2002:c000:204::1', '2002:0a00:0001::1', '2002:ffff:ffff::1']],
    ['srv6-sids', ['5f00::1', '5f00:1234::1']],
    ['unique-local', ['fc00::1', 'fd00::1', 'FD12:3456:789A::1', 'fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff']],
    [
      'link-local',
      ['fe80::1', 'fe80::1%eth0', 'FE80:0000:0000:0000:0202:B3FF:FE1E:8329', 'febf::1', '[fe80::1%25en0]'],
    ],
    ['site-local', ['fec0::1', 'FEC0::1', 'feff::1', 'fed0:0:0:0:0:0:0:1']],
    ['multicast', ['ff02::1', 'ff05::1:3', 'FF0E::101']],
    [
      'not-global-unicast',
      ['1::1', '1000::1', '1fff::1', '4000::1', '7fff::1', '8000::1', 'e000::1', 'fe00::1', '::ffff:1:0:0'],
    ],
  ])('IPv6 %s', (range, addresses) => {
    for (const a of addresses) expect({ a, range: deniedRange(a) }).toEqual({ a, range });
  });

  it('judges the well-known NAT64 prefix (64:ff9b::/96) by the IPv4 address it carries', () => {
    expect(deniedRange('64:ff9b::a9fe:a9fe')).toBe('nat64-of-link-local');
    expect(deniedRange('64:ff9b::169.254.169.254')).toBe('nat64-of-link-local');
    expect(deniedRange('64:ff9b::10.0.0.1')).toBe('nat64-of-private-use');
    expect(deniedRange('0064:FF9B:0000:0000:0000:0000:7F00:0001')).toBe('nat64-of-loopback');
    expect(deniedRange('64:ff9b::c612:1')).toBe('nat64-of-benchmarking');
    expect(deniedRange('64:ff9b::192.0.2.1')).toBe('nat64-of-documentation');
    expect(deniedRange('64:ff9b::808:808')).toBeNull();
    expect(deniedRange('64:ff9b::93.184.216.34')).toBeNull();
    // Outside the /96 but inside 64:ff9b::/32: nothing is assigned there, so not global unicast.
    expect(deniedRange('64:ff9b:0:0:1::808:808')).toBe('not-global-unicast');
  });

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '93.184.216.34',
    '9.255.255.255',
    '11.0.0.0',
    '100.63.255.255',
    '100.128.0.0',
    '126.255.255.255',
    '128.0.0.0',
    '169.253.255.255',
    '169.255.0.0',
    '172.15.255.255',
    '172.32.0.0',
    '191.255.255.255',
    '192.0.1.0',
    '192.0.3.0',
    '192.167.255.255',
    '192.169.0.0',
    '198.17.255.255',
    '198.20.0.0',
    '198.51.99.255',
    '198.51.101.0',
    '203.0.112.255',
    '203.0.114.0',
    '223.255.255.255',
    '2606:2800:220:1:248:1893:25c8:1946',
    '2a00:1450:4001:82b::200e',
    '2000::1',
    '2001:200::1',
    '2001:db7:ffff::1',
    '2001:db9::1',
    '2003::1',
    '2620:4f:7fff::1',
    '3ffe::1',
    '3fff:1000::1',
  ])('%s is public (just outside a denied range, or ordinary)', (a) => {
    expect(deniedRange(a)).toBeNull();
  });

  it.each([
    'not-an-ip',
    '010.0.0.1',
    '1.2.3',
    '1.2.3.4.5',
    '256.0.0.1',
    '0x7f.0.0.1',
    '1:2:3:4:5:6:7:8:9',
    '1::2::3',
    ':::1',
    '::ffff:1.2.3.04',
    '',
  ])('%j is no literal address: refused as unparseable', (a) => {
    expect(deniedRange(a)).toBe('unparseable');
  });

  it('holds for every row of the table, at its first and last address', () => {
    // Written independently of the parser under test: the tables' networks are plain spellings.
    const v4Int = (t: string) => t.split('.').reduce((n, p) => (n << 8n) | BigInt(p), 0n);
    const v6Int = (t: string) => {
      const [l = '', r = ''] = t.split('::');
      const left = l ? l.split(':') : [];
      const right = r ? r.split(':') : [];
      const words = t.includes('::')
        ? [...left, ...new Array<string>(8 - left.length - right.length).fill('0'), ...right]
        : left;
      return words.reduce((n, w) => (n << 16n) | BigInt(parseInt(w, 16)), 0n);
    };
    const v4Text = (n: bigint) => [24n, 16n, 8n, 0n].map((s) => String((n >> s) & 255n)).join('.');
    const v6Text = (n: bigint) =>
      Array.from({ length: 8 }, (_, i) => ((n >> BigInt(112 - 16 * i)) & 0xffffn).toString(16)).join(':');
    const families = [
      { rows: DENIED_IPV4_BLOCKS, bits: 32, toInt: v4Int, toText: v4Text },
      { rows: DENIED_IPV6_BLOCKS, bits: 128, toInt: v6Int, toText: v6Text },
    ];
    for (const { rows, bits, toInt, toText } of families) {
      for (const row of rows) {
        const [net, len] = row.cidr.split('/');
        const first = toInt(net!);
        const last = first + (1n << BigInt(bits - Number(len))) - 1n;
        for (const text of [toText(first), toText(last)]) {
          expect({ cidr: row.cidr, text, denied: deniedRange(text) !== null }).toEqual({
            cidr: row.cidr,
            text,
            denied: true,
          });
        }
      }
    }
  });
});

describe('URL spellings of a denied address are refused before any lookup', () => {
  it.each([
    'https://198.18.0.1/',
    'https://3323068417/', // 198.18.0.1 as one number
    'https://0xc6.0x12.0.1/',
    'https://0306.022.0.1/',
    'https://198.18.1/',
    'https://192.0.2.10/hook',
    'https://203.0.113.5:8443/',
    'https://[::ffff:127.0.0.1]/',
    'https://[::ffff:8.8.8.8]/',
    'https://[0:0:0:0:0:ffff:a9fe:a9fe]/',
    'https://[fec0::1]/',
    'https://[2001:db8::1]/',
    'https://[64:ff9b::a9fe:a9fe]/',
    'https://[FD00::1]/',
    'https://0x7f000001/',
    'https://127.1/',
  ])('%s', (url) => {
    const checked = checkWebhookUrl(url, none);
    expect(checked).toEqual({ refusal: expect.objectContaining({ reason: 'denied_address' }) });
  });
});

describe('a refusal of a host name never says what it resolved to', () => {
  it.each([[['10.1.2.3']], [['93.184.216.34', '198.18.0.7']], [['::ffff:10.0.0.1']], [['fec0::1']], [[]]])(
    '%j',
    (addresses) => {
      const refusal = checkResolvedAddresses('internal.example', addresses, none);
      expect(refusal).toEqual({
        reason: 'denied_address',
        detail: 'host internal.example is not a public address',
      });
      for (const a of addresses) expect(JSON.stringify(refusal)).not.toContain(a);
    },
  );

  it('a literal address the tenant wrote is named, with its range', () => {
    expect(checkWebhookUrl('https://198.51.100.9/', none)).toEqual({
      refusal: {
        reason: 'denied_address',
        detail: 'address 198.51.100.9 is not a public address (documentation)',
        range: 'documentation',
      },
    });
  });
});
