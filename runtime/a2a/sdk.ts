/**
 * The official A2A SDK (`@a2a-js/sdk`), loaded with the first A2A request: a gateway nobody calls over A2A does not
 * hold it (issue 38). Its root (types' codecs, card signatures), server (request handler) and errors, as one object.
 */
export async function loadSdk() {
  const [root, server, errors] = await Promise.all([
    import('@a2a-js/sdk'),
    import('@a2a-js/sdk/server'),
    import('@a2a-js/sdk/errors'),
  ]);
  return { ...root, ...server, ...errors };
}

export type Sdk = Awaited<ReturnType<typeof loadSdk>>;
