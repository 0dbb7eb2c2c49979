// Preloaded into the CLI by tests (NODE_OPTIONS=--import=…): names listed in MQ_TEST_HOSTS resolve
// to 127.0.0.1 without asking any resolver, so a test can use a host name that is not loopback
// (and therefore may be proxied) while every server still listens on 127.0.0.1 only.
import dns from 'node:dns';

const names = new Set((process.env.MQ_TEST_HOSTS ?? '').toLowerCase().split(',').filter(Boolean));
const lookup = dns.lookup;
dns.lookup = function fakeLookup(host, options, callback) {
  if (typeof options === 'function') {
    callback = options;
    options = {};
  }
  if (typeof options === 'number') options = { family: options };
  if (!names.has(String(host).toLowerCase())) return lookup.call(this, host, options, callback);
  if (options?.all) return process.nextTick(callback, null, [{ address: '127.0.0.1', family: 4 }]);
  return process.nextTick(callback, null, '127.0.0.1', 4);
};
