/** The kubelet for test clusters: pods as local processes (or simulated), Services, logs. */
export { startKubelet, type Kubelet, type KubeletOptions } from './kubelet.js';
export { livePids } from './processes.js';
export { parseImageOption, STEWARD_IMAGE } from './images.js';
export type { ProxyTarget } from './network.js';
