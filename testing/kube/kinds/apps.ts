/** apps/v1 Deployment and ReplicaSet: defaults, selector rules, status and scale subresources. */
import { fieldErrors, GoRepr, type FieldError } from '../status-errors.js';
import { fromLabelSelectorObject, labelSelectorString, matchesLabels } from '../selectors.js';
import { isObject, jsonEqual, type JsonObject } from '../schema/types.js';
import { validateLabels } from '../validation/metadata.js';
import { ageColumn, arr, builtin, col, combine, dflt, obj, statusStrategy } from './define.js';
import { defaultPodSpec, validatePodSpec } from './pod-spec.js';

function defaultTemplate(spec: JsonObject): void {
  if (!isObject(spec.template)) spec.template = {};
  const t = spec.template as JsonObject;
  if (!isObject(t.spec)) t.spec = {};
  defaultPodSpec(t.spec as JsonObject);
  // NB: creationTimestamp: null is what the Go encoder writes for an empty template metadata time.
  if (!isObject(t.metadata)) t.metadata = {};
}

function goSelector(sel: unknown): GoRepr {
  const s = obj(sel);
  const labels = Object.entries(obj(s.matchLabels)).map(
    ([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(String(v))}`,
  );
  const ml = labels.length ? `map[string]string{${labels.join(', ')}}` : 'map[string]string(nil)';
  const exprs = arr(s.matchExpressions);
  const me = exprs.length ? `[]v1.LabelSelectorRequirement{...}` : '[]v1.LabelSelectorRequirement(nil)';
  return new GoRepr(`v1.LabelSelector{MatchLabels:${ml}, MatchExpressions:${me}}`);
}

function goLabels(labels: unknown): GoRepr {
  const entries = Object.entries(obj(labels)).map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(String(v))}`);
  return new GoRepr(`map[string]string{${entries.join(', ')}}`);
}

function validateSelectorAndTemplate(o: JsonObject): FieldError[] {
  const spec = obj(o.spec);
  const errs: FieldError[] = [];
  const sel = spec.selector;
  if (!isObject(sel)) errs.push(fieldErrors.required('spec.selector'));
  else {
    if (Object.keys(obj(sel.matchLabels)).length === 0 && arr(sel.matchExpressions).length === 0) {
      errs.push(fieldErrors.invalid('spec.selector', goSelector(sel), 'empty selector is invalid for deployment'));
    }
    errs.push(...validateLabels(sel.matchLabels, 'spec.selector.matchLabels'));
    const tl = obj(obj(obj(spec.template).metadata).labels);
    if (!matchesLabels(fromLabelSelectorObject(sel as JsonObject), tl as Record<string, string>)) {
      errs.push(
        fieldErrors.invalid(
          'spec.template.metadata.labels',
          goLabels(tl),
          '`selector` does not match template `labels`',
        ),
      );
    }
  }
  const replicas = spec.replicas;
  if (typeof replicas === 'number' && replicas < 0)
    errs.push(fieldErrors.invalid('spec.replicas', replicas, 'must be greater than or equal to 0'));
  errs.push(...validatePodSpec(obj(spec.template).spec, 'spec.template.spec'));
  const rp = obj(obj(spec.template).spec).restartPolicy;
  if (rp !== undefined && rp !== 'Always')
    errs.push(fieldErrors.notSupported('spec.template.spec.restartPolicy', rp, ['Always']));
  return errs;
}

function selectorImmutable(n: JsonObject, old: JsonObject): FieldError[] {
  const ns = obj(n.spec).selector;
  const os = obj(old.spec).selector;
  return jsonEqual(ns, os) ? [] : [fieldErrors.invalid('spec.selector', goSelector(ns), 'field is immutable')];
}

const scale = {
  specReplicasPath: '.spec.replicas',
  statusReplicasPath: '.status.replicas',
  labelSelectorPath: '.status.selector',
};

function containers(o: JsonObject): string {
  return arr(obj(obj(obj(o.spec).template).spec).containers)
    .map((c) => String(obj(c).name ?? ''))
    .join(',');
}

function images(o: JsonObject): string {
  return arr(obj(obj(obj(o.spec).template).spec).containers)
    .map((c) => String(obj(c).image ?? ''))
    .join(',');
}

function selectorText(o: JsonObject): string {
  const sel = obj(obj(o.spec).selector);
  const s = labelSelectorString(fromLabelSelectorObject(sel));
  return s || '<none>';
}

export const deployments = builtin({
  group: 'apps',
  version: 'v1',
  resource: 'deployments',
  kind: 'Deployment',
  model: 'V1Deployment',
  namespaced: true,
  shortNames: ['deploy'],
  categories: ['all'],
  status: true,
  scale,
  generation: 'spec',
  columns: [
    col('Ready', 'string', (o) => `${Number(obj(o.status).readyReplicas ?? 0)}/${Number(obj(o.spec).replicas ?? 0)}`),
    col('Up-to-date', 'integer', (o) => Number(obj(o.status).updatedReplicas ?? 0)),
    col('Available', 'integer', (o) => Number(obj(o.status).availableReplicas ?? 0)),
    ageColumn(),
    col('Containers', 'string', containers, 1),
    col('Images', 'string', images, 1),
    col('Selector', 'string', selectorText, 1),
  ],
  strategy: combine(statusStrategy(), {
    defaults(o) {
      if (!isObject(o.spec)) o.spec = {};
      const spec = o.spec as JsonObject;
      dflt(spec, 'replicas', 1);
      dflt(spec, 'strategy', { type: 'RollingUpdate' });
      const st = spec.strategy as JsonObject;
      if (st.type === 'RollingUpdate') {
        dflt(st, 'rollingUpdate', {});
        dflt(st.rollingUpdate as JsonObject, 'maxUnavailable', '25%');
        dflt(st.rollingUpdate as JsonObject, 'maxSurge', '25%');
      }
      dflt(spec, 'revisionHistoryLimit', 10);
      dflt(spec, 'progressDeadlineSeconds', 600);
      defaultTemplate(spec);
    },
    validate: validateSelectorAndTemplate,
    validateUpdate: selectorImmutable,
  }),
});

export const replicasets = builtin({
  group: 'apps',
  version: 'v1',
  resource: 'replicasets',
  kind: 'ReplicaSet',
  model: 'V1ReplicaSet',
  namespaced: true,
  shortNames: ['rs'],
  categories: ['all'],
  status: true,
  scale,
  generation: 'spec',
  fieldSelectors: { 'status.replicas': (o) => String(obj(o.status).replicas ?? 0) },
  columns: [
    col('Desired', 'integer', (o) => Number(obj(o.spec).replicas ?? 0)),
    col('Current', 'integer', (o) => Number(obj(o.status).replicas ?? 0)),
    col('Ready', 'integer', (o) => Number(obj(o.status).readyReplicas ?? 0)),
    ageColumn(),
    col('Containers', 'string', containers, 1),
    col('Images', 'string', images, 1),
    col('Selector', 'string', selectorText, 1),
  ],
  strategy: combine(
    statusStrategy(() => ({ replicas: 0 })),
    {
      defaults(o) {
        if (!isObject(o.spec)) o.spec = {};
        dflt(o.spec as JsonObject, 'replicas', 1);
        defaultTemplate(o.spec as JsonObject);
      },
      validate: validateSelectorAndTemplate,
      validateUpdate: selectorImmutable,
    },
  ),
});

export const APPS_KINDS = [deployments, replicasets];
