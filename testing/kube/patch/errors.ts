/**
 * The one error type of the patch module. Each constructor below reproduces the Status the apiserver
 * answers for the same failure, so the HTTP layer can write `toStatus()` as the response body unchanged.
 */

export type PatchErrorCode = 400 | 404 | 409 | 413 | 415 | 422 | 500;

export interface PatchCause {
  /** Serialised as `reason` in a Status cause (StatusCause.Type). */
  reason?: string;
  message?: string;
  field?: string;
}

export interface PatchErrorDetails {
  name?: string;
  group?: string;
  kind?: string;
  causes?: PatchCause[];
}

export interface PatchStatus {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, never>;
  status: 'Failure';
  message: string;
  reason?: string;
  details?: PatchErrorDetails;
  code: number;
}

export class PatchError extends Error {
  /** HTTP status code. */
  readonly status: PatchErrorCode;
  /** Status reason; '' is the apiserver's StatusReasonUnknown (errors that are not API statuses). */
  readonly reason: string;
  readonly causes?: PatchCause[];
  readonly details?: PatchErrorDetails;

  constructor(
    status: PatchErrorCode,
    reason: string,
    message: string,
    opts: { details?: PatchErrorDetails; cause?: unknown } = {},
  ) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'PatchError';
    this.status = status;
    this.reason = reason;
    if (opts.details) {
      this.details = opts.details;
      if (opts.details.causes) this.causes = opts.details.causes;
    }
  }

  /** The Status body the apiserver sends for this failure. */
  toStatus(): PatchStatus {
    const s: PatchStatus = {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: this.message,
      code: this.status,
    };
    if (this.reason) s.reason = this.reason;
    if (this.details) s.details = this.details;
    return s;
  }
}

export function isPatchError(err: unknown): err is PatchError {
  return err instanceof PatchError;
}

export function badRequest(message: string, cause?: unknown): PatchError {
  return new PatchError(400, 'BadRequest', message, { cause });
}

/**
 * What NewGenericServerResponse(422, ...) builds: the engine's own message is dropped from the wire (the
 * real server answers exactly this for every failed JSON patch operation), so it travels as `cause`.
 */
export function rejectedRequest(why: string): PatchError {
  return new PatchError(422, 'Invalid', 'the server rejected our request due to an error in our request', {
    details: {},
    cause: new Error(why),
  });
}

/** An error that is not an API status: the apiserver answers 500 with an empty reason and the raw text. */
export function internalFailure(message: string): PatchError {
  return new PatchError(500, '', message);
}

export function unsupportedMediaType(accepted: readonly string[]): PatchError {
  return new PatchError(
    415,
    'UnsupportedMediaType',
    `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`,
  );
}

export function entityTooLarge(message: string): PatchError {
  return new PatchError(413, 'RequestEntityTooLarge', `Request entity too large: ${message}`);
}

export interface OptionError {
  field: string;
  /** StatusCause type, e.g. FieldValueRequired. */
  type: string;
  /** Message body as field.Error.ErrorBody renders it. */
  body: string;
}

/** `PatchOptions.meta.k8s.io "" is invalid: ...` (errors.NewInvalid for the request's options). */
export function invalidOptions(errs: readonly OptionError[]): PatchError {
  const texts = errs.map((e) => `${e.field}: ${e.body}`);
  const joined = texts.length === 1 ? texts[0] : `[${texts.join(', ')}]`;
  return new PatchError(422, 'Invalid', `PatchOptions.meta.k8s.io "" is invalid: ${joined}`, {
    details: {
      group: 'meta.k8s.io',
      kind: 'PatchOptions',
      causes: errs.map((e) => ({ reason: e.type, message: e.body, field: e.field })),
    },
  });
}

/** errors.NewInvalid with an empty GroupKind and one field error at `patch`, as the patch decoder reports. */
export function invalidPatchedObject(patched: string, why: string): PatchError {
  const body = `Invalid value: ${JSON.stringify(patched)}: ${why}`;
  return new PatchError(422, 'Invalid', ` "" is invalid: patch: ${body}`, {
    details: { causes: [{ reason: 'FieldValueInvalid', message: body, field: 'patch' }] },
  });
}

export function notFound(message: string): PatchError {
  return new PatchError(404, 'NotFound', message);
}
