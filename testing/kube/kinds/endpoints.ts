/** core/v1 Endpoints: the legacy per-Service address list (kept by the endpoints controller). */
import { arr, builtin, col, ageColumn, obj } from './define.js';

export const endpoints = builtin({
  group: '',
  version: 'v1',
  resource: 'endpoints',
  kind: 'Endpoints',
  model: 'V1Endpoints',
  namespaced: true,
  shortNames: ['ep'],
  allowCreateOnUpdate: true,
  columns: [
    col('Endpoints', 'string', (o) => {
      const all = arr(o.subsets).flatMap((s) =>
        arr(obj(s).addresses).flatMap((a) =>
          arr(obj(s).ports).map((p) => `${String(obj(a).ip)}:${String(obj(p).port)}`),
        ),
      );
      if (!all.length) return '<none>';
      return all.length > 3 ? `${all.slice(0, 3).join(',')} + ${all.length - 3} more...` : all.join(',');
    }),
    ageColumn(),
  ],
});
