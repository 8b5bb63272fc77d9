/** What the route tables say of one endpoint, and the answer shapes several routes share. */
import { z } from 'zod';

/** One documented endpoint; the OpenAPI documents are generated from this table. */
export interface RouteDoc {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  summary: string;
  request?: z.ZodTypeAny;
  /** The query string's parameters, each a key of the object. */
  query?: z.ZodObject;
  /** Alternative request media types besides application/json. */
  requestYaml?: boolean;
  response: z.ZodTypeAny;
  status?: number;
  /** The success answer's media type. @default application/json */
  responseType?: 'application/json' | 'text/plain';
  error: z.ZodTypeAny;
  /**
   * The route's credential rule, as its `config.auth.require` states it (a test compares the two): 'none' is
   * public (`security: []`), 'any' any credential, 'license-key' the organization's key, 'operator' the
   * operator token.
   */
  auth: 'none' | 'any' | 'license-key' | 'operator';
}

export const anyObject = z.record(z.string(), z.unknown());
export const prometheusText = z.string().describe('Prometheus text exposition format 0.0.4');
