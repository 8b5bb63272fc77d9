#!/bin/sh
# The kubectl image's entrypoint under the test cluster's kubelet (install.test.ts). In a real pod kubectl finds
# the service account at /var/run/secrets/kubernetes.io/serviceaccount by itself; a test pod is a process whose
# mounts are under $STEWARD_POD_ROOT, so the in-cluster settings are passed as flags here.
SA="$STEWARD_POD_ROOT/var/run/secrets/kubernetes.io/serviceaccount"
export HOME="$STEWARD_POD_ROOT/tmp"
exec "${KUBECTL:-/usr/bin/kubectl}" \
  --server="https://$KUBERNETES_SERVICE_HOST:$KUBERNETES_SERVICE_PORT" \
  --token="$(cat "$SA/token")" \
  --certificate-authority="$SA/ca.crt" \
  "$@"
