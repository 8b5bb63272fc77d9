import type { FastifyBodyParser, FastifyInstance } from 'fastify';
import { MAX_JSON_DEPTH } from '../../api/http/safe.js';
import type { Surface } from '../../api/index.js';
import { ApiError } from './errors.js';

/**
 * Whether a JSON text opens more than `maxDepth` objects or arrays at once. One pass over the characters,
 * skipping strings; it judges only nesting (JSON.parse judges the rest), so malformed text is not an error here.
 * NB: it runs before JSON.parse so that no recursive code (the parser's reviver, zod, the serializers) ever
 * sees a deeper body. A text of `maxDepth` characters or fewer cannot be deeper and is not scanned.
 */
export function jsonDepthExceeds(text: string, maxDepth: number): boolean {
  if (text.length <= maxDepth) return false;
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // Skip the string with indexOf (native, most of a body is strings): a quote ends it unless an odd number
      // of backslashes precedes it.
      let end = text.indexOf('"', i + 1);
      while (end > 0 && escaped(text, end)) end = text.indexOf('"', end + 1);
      if (end < 0) return false;
      i = end;
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > maxDepth) return true;
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
    }
  }
  return false;
}

/** Whether the quote at `at` is escaped: an odd run of backslashes before it. */
function escaped(text: string, at: number): boolean {
  let n = 0;
  while (text.charCodeAt(at - 1 - n) === 0x5c) n++;
  return n % 2 === 1;
}

/**
 * Replaces fastify's body parsers: JSON goes through the depth check, then fastify's own secure parser
 * (prototype poisoning refused); text/plain, which fastify parses by default, is refused with 415 like every
 * other type no route accepts.
 */
export function installJsonParser(app: FastifyInstance, surface: Surface, maxDepth = MAX_JSON_DEPTH): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, jsonBodyParser(app, surface, maxDepth));
}

/**
 * The JSON parser itself (depth check, then fastify's secure parser), for a plugin that takes JSON under another
 * media type too (A2A's `application/a2a+json`).
 */
export function jsonBodyParser(
  app: FastifyInstance,
  surface: Surface,
  maxDepth = MAX_JSON_DEPTH,
): FastifyBodyParser<string> {
  const parse = app.getDefaultJsonParser('error', 'error');
  return (req, body, done) => {
    if (jsonDepthExceeds(body, maxDepth)) {
      return done(
        new ApiError(
          surface,
          'INVALID_REQUEST',
          `the JSON body nests objects or arrays deeper than ${maxDepth} levels`,
          { max_depth: maxDepth },
        ),
        undefined,
      );
    }
    parse(req, body, done);
  };
}
