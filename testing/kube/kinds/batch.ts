/**
 * batch/v1 Job: defaults (completions, parallelism, backoffLimit), the selector and labels the server
 * generates from the Job's uid, template restartPolicy rules, immutable template and selector.
 */
import { fieldErrors, type FieldError } from '../status-errors.js';
import { isObject, jsonEqual, type JsonObject } from '../schema/types.js';
import { ageColumn, builtin, col, combine, dflt, meta, obj, statusStrategy } from './define.js';
import { defaultPodSpec, validatePodSpec } from './pod-spec.js';

export const JOB_UID_LABEL = 'batch.kubernetes.io/controller-uid';
export const JOB_NAME_LABEL = 'batch.kubernetes.io/job-name';

function defaults(o: JsonObject): void {
  if (!isObject(o.spec)) o.spec = {};
  const spec = o.spec as JsonObject;
  if (spec.completions === undefined && spec.parallelism === undefined) {
    spec.completions = 1;
    spec.parallelism = 1;
  }
  dflt(spec, 'parallelism', 1);
  dflt(spec, 'backoffLimit', 6);
  dflt(spec, 'completionMode', 'NonIndexed');
  dflt(spec, 'suspend', false);
  dflt(spec, 'podReplacementPolicy', 'TerminatingOrFailed');
  if (!isObject(spec.template)) spec.template = {};
  const t = spec.template as JsonObject;
  if (!isObject(t.metadata)) t.metadata = {};
  if (!isObject(t.spec)) t.spec = {};
  defaultPodSpec(t.spec as JsonObject);
}

/** The generated selector (batch.kubernetes.io/controller-uid) and the labels it selects. */
function generateSelector(o: JsonObject): void {
  const spec = obj(o.spec);
  if (spec.manualSelector === true) return;
  const uid = String(meta(o).uid);
  const name = String(meta(o).name);
  spec.selector = { matchLabels: { [JOB_UID_LABEL]: uid } };
  const tm = obj(obj(spec.template).metadata);
  tm.labels = {
    ...obj(tm.labels),
    [JOB_UID_LABEL]: uid,
    [JOB_NAME_LABEL]: name,
    'controller-uid': uid,
    'job-name': name,
  };
  obj(spec.template).metadata = tm;
}

function validate(o: JsonObject): FieldError[] {
  const spec = obj(o.spec);
  const errs: FieldError[] = [];
  for (const f of ['completions', 'parallelism', 'backoffLimit']) {
    const v = spec[f];
    if (typeof v === 'number' && v < 0)
      errs.push(fieldErrors.invalid(`spec.${f}`, v, 'must be greater than or equal to 0'));
  }
  const tspec = obj(obj(spec.template).spec);
  errs.push(...validatePodSpec(tspec, 'spec.template.spec'));
  const rp = tspec.restartPolicy;
  if (rp !== 'OnFailure' && rp !== 'Never')
    errs.push(fieldErrors.notSupported('spec.template.spec.restartPolicy', rp ?? '', ['OnFailure', 'Never']));
  return errs;
}

function validateUpdate(n: JsonObject, old: JsonObject): FieldError[] {
  const errs: FieldError[] = [];
  if (!jsonEqual(obj(n.spec).selector, obj(old.spec).selector))
    errs.push(fieldErrors.immutable('spec.selector', obj(n.spec).selector));
  if (!jsonEqual(obj(n.spec).template, obj(old.spec).template))
    errs.push(fieldErrors.immutable('spec.template', obj(n.spec).template));
  if (!jsonEqual(obj(n.spec).completions, obj(old.spec).completions))
    errs.push(fieldErrors.immutable('spec.completions', obj(n.spec).completions));
  return errs;
}

function completionsText(o: JsonObject): string {
  const c = obj(o.spec).completions;
  return `${Number(obj(o.status).succeeded ?? 0)}/${c === undefined ? '1' : String(c)}`;
}

function statusText(o: JsonObject): string {
  const conds = (Array.isArray(obj(o.status).conditions) ? obj(o.status).conditions : []) as JsonObject[];
  const done = conds.find((c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True');
  if (done) return done.type === 'Complete' ? 'Complete' : 'Failed';
  return obj(o.spec).suspend === true ? 'Suspended' : 'Running';
}

export const jobs = builtin({
  group: 'batch',
  version: 'v1',
  resource: 'jobs',
  kind: 'Job',
  model: 'V1Job',
  namespaced: true,
  categories: ['all'],
  status: true,
  generation: 'spec',
  columns: [col('Status', 'string', statusText), col('Completions', 'string', completionsText), ageColumn()],
  strategy: combine(statusStrategy(), { defaults, prepareForCreate: generateSelector, validate, validateUpdate }),
});

export const BATCH_KINDS = [jobs];
