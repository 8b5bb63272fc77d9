/**
 * Loads @kubernetes/client-node for tests. NB: client-node 2.0 depends on undici 8, which does not load on
 * Node < 22.19 (it needs zlib zstd); package.json overrides it with the project's undici 7.
 */
type ClientNode = typeof import('@kubernetes/client-node');

let loaded: Promise<ClientNode> | undefined;

export function loadClientNode(): Promise<ClientNode> {
  loaded ??= import('@kubernetes/client-node');
  return loaded;
}
