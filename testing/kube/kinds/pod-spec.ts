/**
 * PodSpec defaulting and the validations operators trip over, shared by Pods and by the pod templates of
 * Deployments and ReplicaSets (SetDefaults_PodSpec, SetDefaults_Container, ValidatePodSpec).
 */
import { fieldErrors, type FieldError } from '../status-errors.js';
import { isObject, type JsonObject } from '../schema/types.js';
import { dns1123LabelErrors } from '../validation/names.js';
import { arr, dflt, obj } from './define.js';

function imagePullPolicy(image: string): string {
  // NB: the tag is after the last ':' that follows the last '/' (a registry port is not a tag).
  const afterSlash = image.slice(image.lastIndexOf('/') + 1);
  const at = afterSlash.indexOf('@');
  if (at >= 0) return 'IfNotPresent';
  const colon = afterSlash.lastIndexOf(':');
  const tag = colon >= 0 ? afterSlash.slice(colon + 1) : '';
  return tag === '' || tag === 'latest' ? 'Always' : 'IfNotPresent';
}

function defaultProbe(p: unknown): void {
  if (!isObject(p)) return;
  dflt(p, 'timeoutSeconds', 1);
  dflt(p, 'periodSeconds', 10);
  dflt(p, 'successThreshold', 1);
  dflt(p, 'failureThreshold', 3);
  if (isObject(p.httpGet)) {
    dflt(p.httpGet, 'path', '/');
    dflt(p.httpGet, 'scheme', 'HTTP');
  }
}

function defaultContainer(c: unknown): void {
  if (!isObject(c)) return;
  if (typeof c.image === 'string') dflt(c, 'imagePullPolicy', imagePullPolicy(c.image));
  dflt(c, 'terminationMessagePath', '/dev/termination-log');
  dflt(c, 'terminationMessagePolicy', 'File');
  dflt(c, 'resources', {});
  for (const port of arr(c.ports)) if (isObject(port)) dflt(port, 'protocol', 'TCP');
  for (const env of arr(c.env)) {
    if (isObject(env) && isObject(env.valueFrom) && isObject(env.valueFrom.fieldRef))
      dflt(env.valueFrom.fieldRef, 'apiVersion', 'v1');
  }
  defaultProbe(c.livenessProbe);
  defaultProbe(c.readinessProbe);
  defaultProbe(c.startupProbe);
}

function defaultVolume(v: unknown): void {
  if (!isObject(v)) return;
  for (const key of ['secret', 'configMap', 'projected', 'downwardAPI']) {
    if (isObject(v[key])) dflt(v[key] as JsonObject, 'defaultMode', 420);
  }
  const hasSource = Object.keys(v).some((k) => k !== 'name');
  if (!hasSource) v.emptyDir = {};
}

export function defaultPodSpec(spec: JsonObject): void {
  dflt(spec, 'restartPolicy', 'Always');
  dflt(spec, 'terminationGracePeriodSeconds', 30);
  dflt(spec, 'dnsPolicy', 'ClusterFirst');
  dflt(spec, 'securityContext', {});
  dflt(spec, 'schedulerName', 'default-scheduler');
  for (const c of arr(spec.containers)) defaultContainer(c);
  for (const c of arr(spec.initContainers)) defaultContainer(c);
  for (const v of arr(spec.volumes)) defaultVolume(v);
}

/** Defaults only real Pods get (not templates). */
export function defaultPodOnly(spec: JsonObject): void {
  dflt(spec, 'enableServiceLinks', true);
  dflt(spec, 'preemptionPolicy', 'PreemptLowerPriority');
  dflt(spec, 'priority', 0);
  dflt(spec, 'serviceAccountName', 'default');
  dflt(spec, 'serviceAccount', spec.serviceAccountName);
}

function validateContainers(list: unknown, path: string, required: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const cs = arr(list);
  if (required && cs.length === 0) {
    errs.push(fieldErrors.required(path));
    return errs;
  }
  const names = new Set<string>();
  cs.forEach((c, i) => {
    const p = `${path}[${i}]`;
    const co = obj(c);
    const name = typeof co.name === 'string' ? co.name : '';
    if (!name) errs.push(fieldErrors.required(`${p}.name`));
    else {
      for (const m of dns1123LabelErrors(name)) errs.push(fieldErrors.invalid(`${p}.name`, name, m));
      if (names.has(name)) errs.push(fieldErrors.duplicate(`${p}.name`, name));
      names.add(name);
    }
    if (typeof co.image !== 'string' || co.image.trim() === '') errs.push(fieldErrors.required(`${p}.image`));
    arr(co.ports).forEach((port, j) => {
      const n = obj(port).containerPort;
      if (typeof n !== 'number' || n < 1 || n > 65535) {
        errs.push(
          fieldErrors.invalid(`${p}.ports[${j}].containerPort`, n ?? 0, 'must be between 1 and 65535, inclusive'),
        );
      }
    });
  });
  return errs;
}

export function validatePodSpec(spec: unknown, path: string): FieldError[] {
  const s = obj(spec);
  const errs = [
    ...validateContainers(s.containers, `${path}.containers`, true),
    ...validateContainers(s.initContainers, `${path}.initContainers`, false),
  ];
  const rp = s.restartPolicy;
  if (rp !== undefined && !['Always', 'OnFailure', 'Never'].includes(String(rp))) {
    errs.push(fieldErrors.notSupported(`${path}.restartPolicy`, rp, ['Always', 'OnFailure', 'Never']));
  }
  return errs;
}
