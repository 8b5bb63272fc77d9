/**
 * Events: core/v1 Event and events.k8s.io/v1 Event share one storage (in core/v1 form) with field
 * conversion, as the real server does, so `kubectl describe` finds events an operator wrote with either.
 */
import type { ResourceType } from '../registry.js';
import { fieldErrors, type FieldError } from '../status-errors.js';
import type { JsonObject } from '../schema/types.js';
import { age } from '../table.js';
import { builtin, col, meta, obj } from './define.js';

export const eventFieldSelectors: ResourceType['fieldSelectors'] = {
  'involvedObject.kind': (o) => obj(o.involvedObject).kind as string | undefined,
  'involvedObject.namespace': (o) => obj(o.involvedObject).namespace as string | undefined,
  'involvedObject.name': (o) => obj(o.involvedObject).name as string | undefined,
  'involvedObject.uid': (o) => obj(o.involvedObject).uid as string | undefined,
  'involvedObject.apiVersion': (o) => obj(o.involvedObject).apiVersion as string | undefined,
  'involvedObject.resourceVersion': (o) => obj(o.involvedObject).resourceVersion as string | undefined,
  'involvedObject.fieldPath': (o) => obj(o.involvedObject).fieldPath as string | undefined,
  reason: (o) => o.reason as string | undefined,
  reportingComponent: (o) => o.reportingComponent as string | undefined,
  source: (o) => obj(o.source).component as string | undefined,
  type: (o) => o.type as string | undefined,
};

function lastSeen(o: JsonObject, now: number): string {
  const ts = (o.lastTimestamp as string) || (o.eventTime as string) || (meta(o).creationTimestamp as string);
  return age(ts, now);
}

export const eventColumns = [
  col('Last Seen', 'string', lastSeen),
  col('Type', 'string', (o) => o.type ?? ''),
  col('Reason', 'string', (o) => o.reason ?? ''),
  col(
    'Object',
    'string',
    (o) => `${String(obj(o.involvedObject).kind ?? '').toLowerCase()}/${String(obj(o.involvedObject).name ?? '')}`,
  ),
  col('Subobject', 'string', (o) => obj(o.involvedObject).fieldPath ?? '', 1),
  col('Source', 'string', (o) => obj(o.source).component ?? o.reportingComponent ?? '', 1),
  col('Message', 'string', (o) => String(o.message ?? '').trim()),
  col('First Seen', 'string', (o, now) => age((o.firstTimestamp as string) || (o.eventTime as string), now), 1),
  col('Count', 'string', (o) => String(o.count ?? 1), 1),
  col('Name', 'string', (o) => meta(o).name ?? '', 1),
];

export const events = builtin({
  group: '',
  version: 'v1',
  resource: 'events',
  kind: 'Event',
  model: 'CoreV1Event',
  namespaced: true,
  shortNames: ['ev'],
  allowCreateOnUpdate: true,
  storageKey: 'events',
  storageApiVersion: 'v1',
  fieldSelectors: eventFieldSelectors,
  columns: eventColumns,
  strategy: {
    validate(o) {
      const errs: FieldError[] = [];
      const ns = meta(o).namespace;
      const io = obj(o.involvedObject);
      if (io.namespace && ns && io.namespace !== ns) {
        errs.push(fieldErrors.invalid('involvedObject.namespace', io.namespace, 'does not match event.namespace'));
      }
      return errs;
    },
  },
});

/** events.k8s.io/v1 field names, mapped to core/v1 field names (the stored form). */
const EVENT_FIELDS: [string, string][] = [
  ['regarding', 'involvedObject'],
  ['related', 'related'],
  ['note', 'message'],
  ['reason', 'reason'],
  ['type', 'type'],
  ['action', 'action'],
  ['eventTime', 'eventTime'],
  ['series', 'series'],
  ['reportingController', 'reportingComponent'],
  ['reportingInstance', 'reportingInstance'],
  ['deprecatedSource', 'source'],
  ['deprecatedFirstTimestamp', 'firstTimestamp'],
  ['deprecatedLastTimestamp', 'lastTimestamp'],
  ['deprecatedCount', 'count'],
];

function mapFields(o: JsonObject, pairs: [string, string][], apiVersion: string): JsonObject {
  const out: JsonObject = { kind: 'Event', apiVersion, metadata: o.metadata };
  for (const [from, to] of pairs) if (o[from] !== undefined) out[to] = o[from];
  return out;
}

export const eventsV1 = builtin({
  group: 'events.k8s.io',
  version: 'v1',
  resource: 'events',
  kind: 'Event',
  model: 'EventsV1Event',
  namespaced: true,
  shortNames: ['ev'],
  allowCreateOnUpdate: true,
  storageKey: 'events',
  storageApiVersion: 'v1',
  // Selectors evaluate the stored (core/v1) form; events.k8s.io names map onto it.
  fieldSelectors: {
    ...eventFieldSelectors,
    ...Object.fromEntries(
      Object.entries(eventFieldSelectors)
        .filter(([k]) => k.startsWith('involvedObject.'))
        .map(([k, f]) => [k.replace('involvedObject.', 'regarding.'), f]),
    ),
    reportingController: eventFieldSelectors.reportingComponent!,
  },
  columns: eventColumns,
  convert: {
    toStorage: (o) => mapFields(o, EVENT_FIELDS, 'v1'),
    fromStorage: (o) =>
      mapFields(
        o,
        EVENT_FIELDS.map(([a, b]) => [b, a]),
        'events.k8s.io/v1',
      ),
  },
  strategy: {
    validate(o) {
      const errs: FieldError[] = [];
      if (!o.eventTime) errs.push(fieldErrors.required('eventTime'));
      if (!o.reportingController) errs.push(fieldErrors.required('reportingController'));
      if (!o.reportingInstance) errs.push(fieldErrors.required('reportingInstance'));
      if (!o.action) errs.push(fieldErrors.required('action'));
      if (!o.reason) errs.push(fieldErrors.required('reason'));
      const t = o.type;
      if (t !== 'Normal' && t !== 'Warning')
        errs.push(fieldErrors.invalid('type', t ?? '', 'has invalid value: ' + String(t ?? '')));
      return errs;
    },
  },
});
