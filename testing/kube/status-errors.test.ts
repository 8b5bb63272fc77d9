import { describe, expect, it } from 'vitest';
import {
  alreadyExists,
  conflict,
  expired,
  fieldErrors,
  invalid,
  methodNotSupported,
  notFound,
  OPTIMISTIC_LOCK_MESSAGE,
  tooManyRequests,
  unsupportedMediaType,
} from './status-errors.js';

describe('Status errors have the real server shape', () => {
  it('404 NotFound names the group-qualified resource', () => {
    expect(notFound({ group: 'apps', resource: 'deployments' }, 'web').status).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'deployments.apps "web" not found',
      reason: 'NotFound',
      details: { name: 'web', group: 'apps', kind: 'deployments' },
      code: 404,
    });
  });

  it('409 AlreadyExists and Conflict', () => {
    expect(alreadyExists({ group: '', resource: 'configmaps' }, 'a').status.message).toBe(
      'configmaps "a" already exists',
    );
    const c = conflict({ group: 'example.com', resource: 'widgets' }, 'w', OPTIMISTIC_LOCK_MESSAGE).status;
    expect(c.message).toBe(
      'Operation cannot be fulfilled on widgets.example.com "w": the object has been modified; please apply your changes to the latest version and try again',
    );
    expect(c.reason).toBe('Conflict');
    expect(c.code).toBe(409);
  });

  it('422 Invalid lists one cause per field error and brackets several', () => {
    const s = invalid('example.com', 'Widget', 'w', [
      fieldErrors.notSupported('spec.size', 'huge', ['small', 'large']),
      fieldErrors.required('spec.name'),
      fieldErrors.tooLong('spec.color', 10),
    ]).status;
    expect(s.message).toBe(
      'Widget.example.com "w" is invalid: [spec.size: Unsupported value: "huge": supported values: "small", "large", spec.name: Required value, spec.color: Too long: may not be longer than 10]',
    );
    expect(s.details).toEqual({
      name: 'w',
      group: 'example.com',
      kind: 'Widget',
      causes: [
        {
          reason: 'FieldValueNotSupported',
          message: 'Unsupported value: "huge": supported values: "small", "large"',
          field: 'spec.size',
        },
        { reason: 'FieldValueRequired', message: 'Required value', field: 'spec.name' },
        { reason: 'FieldValueTooLong', message: 'Too long: may not be longer than 10', field: 'spec.color' },
      ],
    });
  });

  it('410, 415, 405 and 429 carry their reasons', () => {
    expect(expired('too old resource version: 1 (5)').status).toMatchObject({ reason: 'Expired', code: 410 });
    expect(unsupportedMediaType(['application/json-patch+json', 'application/merge-patch+json']).status.message).toBe(
      'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json',
    );
    expect(methodNotSupported({ group: '', resource: 'namespaces' }, 'deletecollection').status).toMatchObject({
      reason: 'MethodNotAllowed',
      code: 405,
    });
    const t = tooManyRequests('slow down', 3);
    expect(t.status).toMatchObject({ reason: 'TooManyRequests', code: 429, details: { retryAfterSeconds: 3 } });
    expect(t.headers['Retry-After']).toBe('3');
  });
});
