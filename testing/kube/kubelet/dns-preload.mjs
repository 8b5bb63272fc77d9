// Loaded into Node.js containers with NODE_OPTIONS=--import=<this file>: answers Service names from the
// kubelet's hosts file ($STEWARD_KUBE_HOSTS, re-read on every lookup so it is always current), as cluster
// DNS would: NAME, NAME.NS, NAME.NS.svc, NAME.NS.svc.cluster.local. Other names go to the system resolver.
// NB: only dns.lookup (what net, http and fetch use) is patched; dns.resolve* and non-Node processes
// do not see these names.
import dns from 'node:dns';
import { readFileSync } from 'node:fs';

const hostsFile = process.env.STEWARD_KUBE_HOSTS;
const namespace = process.env.STEWARD_KUBE_NAMESPACE ?? 'default';

function clusterAddress(hostname) {
  if (!hostsFile || typeof hostname !== 'string') return undefined;
  let hosts;
  try {
    hosts = JSON.parse(readFileSync(hostsFile, 'utf8'));
  } catch {
    return undefined;
  }
  const h = hostname.toLowerCase().replace(/\.$/, '');
  const candidates = [h, `${h}.cluster.local`, `${h}.svc.cluster.local`, `${h}.${namespace}.svc.cluster.local`];
  for (const c of candidates) if (Object.prototype.hasOwnProperty.call(hosts, c)) return hosts[c];
  return undefined;
}

const original = dns.lookup;
dns.lookup = function lookup(hostname, options, callback) {
  const cb = typeof options === 'function' ? options : callback;
  const opts = typeof options === 'object' && options !== null ? options : { family: typeof options === 'number' ? options : 0 };
  const address = clusterAddress(hostname);
  if (address === undefined || opts.family === 6) return original.call(dns, hostname, options, callback);
  process.nextTick(() => (opts.all ? cb(null, [{ address, family: 4 }]) : cb(null, address, 4)));
  return {};
};

const originalPromise = dns.promises.lookup;
dns.promises.lookup = async function lookup(hostname, options) {
  const opts = typeof options === 'object' && options !== null ? options : { family: typeof options === 'number' ? options : 0 };
  const address = clusterAddress(hostname);
  if (address === undefined || opts.family === 6) return originalPromise.call(dns.promises, hostname, options);
  return opts.all ? [{ address, family: 4 }] : { address, family: 4 };
};
