/**
 * Kubernetes `Status` error objects, shaped exactly as k8s.io/apimachinery/pkg/api/errors builds them:
 * clients (kubectl, client-go, client-node) branch on `reason` and `code`, and kubectl prints `message`.
 */
import { fieldErrorBody, fieldErrorString, type FieldError } from './field-errors.js';

export { fieldErrors, GoRepr, OMIT, goQuote, type FieldError, type FieldErrorType } from './field-errors.js';

export type StatusReason =
  | 'BadRequest'
  | 'NotFound'
  | 'AlreadyExists'
  | 'Conflict'
  | 'Invalid'
  | 'Gone'
  | 'Expired'
  | 'Forbidden'
  | 'MethodNotAllowed'
  | 'NotAcceptable'
  | 'UnsupportedMediaType'
  | 'RequestEntityTooLarge'
  | 'TooManyRequests'
  | 'InternalError'
  | 'Timeout'
  | 'ServiceUnavailable';

export interface StatusCause {
  reason?: string;
  message?: string;
  field?: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

export interface Status {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, never>;
  status: 'Failure' | 'Success';
  message?: string;
  reason?: StatusReason;
  details?: StatusDetails;
  code: number;
}

/** A group and resource, as in `deployments.apps`; the core group is ''. */
export interface GroupResource {
  group: string;
  resource: string;
}

/** The error every layer throws; the HTTP layer writes `status` as the body with `status.code`. */
export class ApiError extends Error {
  readonly status: Status;
  /** Extra response headers (Retry-After for 429). */
  readonly headers: Record<string, string>;

  constructor(status: Status, headers: Record<string, string> = {}) {
    super(status.message ?? status.reason ?? 'error');
    this.name = 'ApiError';
    this.status = status;
    this.headers = headers;
  }

  get code(): number {
    return this.status.code;
  }

  get reason(): StatusReason | undefined {
    return this.status.reason;
  }
}

export function isApiError(err: unknown): err is ApiError {
  return err instanceof ApiError;
}

function failure(code: number, reason: StatusReason, message: string, details?: StatusDetails): ApiError {
  // NB: key order matches the real server's JSON (details before code).
  const status: Status = details
    ? { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, details, code }
    : { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code };
  return new ApiError(status);
}

/** `deployments.apps` or `configmaps` (GroupResource.String()). */
export function qualifiedResource(gr: GroupResource): string {
  return gr.group ? `${gr.resource}.${gr.group}` : gr.resource;
}

/** `Deployment.apps` or `ConfigMap` (GroupKind.String()). */
export function qualifiedKind(group: string, kind: string): string {
  return group ? `${kind}.${group}` : kind;
}

function grDetails(gr: GroupResource, name: string): StatusDetails {
  const d: StatusDetails = {};
  if (name) d.name = name;
  if (gr.group) d.group = gr.group;
  d.kind = gr.resource; // NB: the real server puts the resource, not the kind, here.
  return d;
}

export function notFound(gr: GroupResource, name: string): ApiError {
  return failure(404, 'NotFound', `${qualifiedResource(gr)} "${name}" not found`, grDetails(gr, name));
}

export function alreadyExists(gr: GroupResource, name: string): ApiError {
  return failure(409, 'AlreadyExists', `${qualifiedResource(gr)} "${name}" already exists`, grDetails(gr, name));
}

export function conflict(gr: GroupResource, name: string, why: string): ApiError {
  return failure(
    409,
    'Conflict',
    `Operation cannot be fulfilled on ${qualifiedResource(gr)} "${name}": ${why}`,
    grDetails(gr, name),
  );
}

export const OPTIMISTIC_LOCK_MESSAGE =
  'the object has been modified; please apply your changes to the latest version and try again';

export function forbidden(gr: GroupResource, name: string, why: string, causes?: StatusCause[]): ApiError {
  const message = name
    ? `${qualifiedResource(gr)} "${name}" is forbidden: ${why}`
    : `${qualifiedResource(gr)} is forbidden: ${why}`;
  const details = grDetails(gr, name);
  if (causes) details.causes = causes;
  return failure(403, 'Forbidden', message, details);
}

export function badRequest(message: string): ApiError {
  return failure(400, 'BadRequest', message);
}

export function methodNotSupported(gr: GroupResource, action: string): ApiError {
  const details: StatusDetails = {};
  if (gr.group) details.group = gr.group;
  details.kind = gr.resource;
  return failure(
    405,
    'MethodNotAllowed',
    `${action} is not supported on resources of kind "${qualifiedResource(gr)}"`,
    details,
  );
}

export function methodNotAllowed(): ApiError {
  return failure(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource');
}

export function unsupportedMediaType(accepted: string[]): ApiError {
  return failure(
    415,
    'UnsupportedMediaType',
    `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`,
  );
}

export function notAcceptable(accepted: string[]): ApiError {
  return failure(406, 'NotAcceptable', `only the following media types are accepted: ${accepted.join(', ')}`);
}

export function expired(message: string): ApiError {
  return failure(410, 'Expired', message);
}

export function gone(message: string): ApiError {
  return failure(410, 'Gone', message);
}

export function tooManyRequests(message: string, retryAfterSeconds: number): ApiError {
  const err = failure(429, 'TooManyRequests', message, { retryAfterSeconds });
  err.headers['Retry-After'] = String(retryAfterSeconds);
  return err;
}

export function internalError(why: string): ApiError {
  return failure(500, 'InternalError', `Internal error occurred: ${why}`, { causes: [{ message: why }] });
}

export function timeoutError(message: string, retryAfterSeconds: number): ApiError {
  return failure(504, 'Timeout', message, { retryAfterSeconds });
}

export function entityTooLarge(message: string): ApiError {
  return failure(413, 'RequestEntityTooLarge', `Request entity too large: ${message}`);
}

export function serviceUnavailable(message: string): ApiError {
  return failure(503, 'ServiceUnavailable', message);
}

/** `<Kind.group> "<name>" is invalid: <errors>` with one cause per field error (errors.NewInvalid). */
export function invalid(group: string, kind: string, name: string, errs: FieldError[]): ApiError {
  const seen = new Set<string>();
  const texts: string[] = [];
  for (const e of errs) {
    const t = fieldErrorString(e);
    if (!seen.has(t)) {
      seen.add(t);
      texts.push(t);
    }
  }
  const qk = qualifiedKind(group, kind);
  let message = `${qk} "${name}" is invalid`;
  if (texts.length === 1) message += `: ${texts[0]}`;
  else if (texts.length > 1) message += `: [${texts.join(', ')}]`;
  const details: StatusDetails = {};
  if (name) details.name = name;
  if (group) details.group = group;
  details.kind = kind;
  details.causes = errs.map((e) => ({ reason: e.type, message: fieldErrorBody(e), field: e.field }));
  return failure(422, 'Invalid', message, details);
}
