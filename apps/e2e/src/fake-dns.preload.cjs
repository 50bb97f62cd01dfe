'use strict';
// Test-only DNS for the end-to-end suites, loaded into each host process with
// `NODE_OPTIONS=--require <this file>`: names listed in the JSON file named by FAKE_DNS_FILE
// (`{"name": ["address", ...]}`) resolve to those addresses; every other name goes to the system
// resolver. The file is read at every lookup, so a test rebinds a name by rewriting it, as the
// owner of a name would change its DNS record between a webhook's registration and its delivery.
// Nothing of this ships: the host resolves names with the system resolver only.
const { readFileSync } = require('node:fs');
const { isIP } = require('node:net');
const dns = require('node:dns/promises');

const file = process.env.FAKE_DNS_FILE;
const systemLookup = dns.lookup;

function table() {
  return JSON.parse(readFileSync(file, 'utf8'));
}

dns.lookup = async function lookup(hostname, options) {
  const answers = file ? table()[String(hostname).toLowerCase()] : undefined;
  if (!answers) return systemLookup.call(this, hostname, options);
  const found = answers.map((address) => ({ address, family: isIP(address) }));
  if (found.length === 0)
    throw Object.assign(new Error(`queryA ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
  return typeof options === 'object' && options !== null && options.all ? found : found[0];
};
