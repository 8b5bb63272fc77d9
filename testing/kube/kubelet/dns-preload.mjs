// Loaded into Node.js containers with NODE_OPTIONS=--import=<this file>: answers Service names from the
// kubelet's hosts file ($STEWARD_KUBE_HOSTS, re-read on every lookup so it is always current), as cluster
// DNS would: NAME, NAME.NS, NAME.NS.svc, NAME.NS.svc.cluster.local. Other names go to the system resolver.
// NB: only dns.lookup (what net, http and fetch use) is patched; dns.resolve* and non-Node processes
// do not see these names.
// It also plays the pod's network namespace for servers: a listen on every interface (no host, 0.0.0.0 or ::)
// binds the pod's IP ($STEWARD_KUBE_POD_IP) instead, so that several pods can serve the same port, as they do
// in a cluster, while the program binds all interfaces as it should there.
import dns from 'node:dns';
import net from 'node:net';
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
  const opts =
    typeof options === 'object' && options !== null ? options : { family: typeof options === 'number' ? options : 0 };
  const address = clusterAddress(hostname);
  if (address === undefined || opts.family === 6) return original.call(dns, hostname, options, callback);
  process.nextTick(() => (opts.all ? cb(null, [{ address, family: 4 }]) : cb(null, address, 4)));
  return {};
};

const originalPromise = dns.promises.lookup;
dns.promises.lookup = async function lookup(hostname, options) {
  const opts =
    typeof options === 'object' && options !== null ? options : { family: typeof options === 'number' ? options : 0 };
  const address = clusterAddress(hostname);
  if (address === undefined || opts.family === 6) return originalPromise.call(dns.promises, hostname, options);
  return opts.all ? [{ address, family: 4 }] : { address, family: 4 };
};

const podIP = process.env.STEWARD_KUBE_POD_IP;
if (podIP) {
  const anyHost = (h) => h === undefined || h === null || h === '' || h === '0.0.0.0' || h === '::';
  const originalListen = net.Server.prototype.listen;
  net.Server.prototype.listen = function listen(...args) {
    const [first, second] = args;
    if (
      typeof first === 'object' &&
      first !== null &&
      first.path === undefined &&
      first.handle === undefined &&
      first.fd === undefined
    ) {
      if (anyHost(first.host)) args[0] = { ...first, host: podIP };
    } else if (typeof first === 'number' || (typeof first === 'string' && /^\d+$/.test(first))) {
      if (typeof second === 'function' || typeof second === 'number') args.splice(1, 0, podIP);
      else if (anyHost(second)) args[1] = podIP;
    }
    return originalListen.apply(this, args);
  };
}
