/** Reading bodies and writing JSON, Status errors, and Warning headers on node:http. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseYaml } from 'yaml';
import { decodeProtobufObject } from './protobuf.js';
import { ApiError, badRequest, entityTooLarge, internalError, unsupportedMediaType } from '../status-errors.js';

/** The real server's default request body limit (3 MiB). */
export const MAX_BODY_BYTES = 3 * 1024 * 1024;

export async function readBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<string> {
  return (await readRaw(req, limit)).toString('utf8');
}

export async function readRaw(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const b = chunk as Buffer;
    size += b.length;
    if (size > limit) throw entityTooLarge(`limit is ${limit}`);
    chunks.push(b);
  }
  return Buffer.concat(chunks);
}

export function mediaType(header: string | undefined): string {
  return (header ?? '').split(';')[0]!.trim().toLowerCase();
}

/** Parses a create/update body as JSON, YAML or (for a few kinds) protobuf. */
export function parseObjectBody(raw: Buffer, contentType: string | undefined): unknown {
  const mt = mediaType(contentType) || 'application/json';
  if (mt === 'application/vnd.kubernetes.protobuf') return decodeProtobufObject(raw);
  const text = raw.toString('utf8');
  if (mt === 'application/json' || mt === '*/*') {
    try {
      return JSON.parse(text);
    } catch (e) {
      throw badRequest(`the object provided is unrecognized: ${(e as Error).message}`);
    }
  }
  if (mt === 'application/yaml') {
    try {
      return parseYaml(text);
    } catch (e) {
      throw badRequest(`error converting YAML to JSON: ${(e as Error).message}`);
    }
  }
  throw unsupportedMediaType(['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf']);
}

/** `299 - "text"` with the quoting net/http and client-go expect. */
export function warningHeader(text: string): string {
  return `299 - "${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

export function sendJson(
  res: ServerResponse,
  code: number,
  body: unknown,
  headers: Record<string, string | string[]> = {},
  contentType = 'application/json',
): void {
  if (res.headersSent) return;
  const text = JSON.stringify(body);
  res.writeHead(code, {
    'Content-Type': contentType,
    'Cache-Control': 'no-cache, private',
    ...headers,
    'Content-Length': Buffer.byteLength(text),
  });
  res.end(text);
}

export function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  const maybe = err as { toStatus?: () => { code: number } } | undefined;
  if (maybe && typeof maybe.toStatus === 'function') {
    // The PATCH helper's PatchError already carries the exact Status.
    return new ApiError(maybe.toStatus() as ApiError['status']);
  }
  return internalError(err instanceof Error ? err.message : String(err));
}

export function sendError(res: ServerResponse, err: unknown): ApiError {
  const e = toApiError(err);
  sendJson(res, e.status.code, e.status, e.headers);
  return e;
}
