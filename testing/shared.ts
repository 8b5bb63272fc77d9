import { fileURLToPath } from 'node:url';

/**
 * The `shared/` folder that sits beside the repository (design docs, OPA's conformance cases, the wasm
 * fixture). CI clones the repository with shared/ beside it; STEWARD_SHARED_DIR overrides.
 */
export const SHARED_DIR: string =
  process.env.STEWARD_SHARED_DIR ?? fileURLToPath(new URL('../../shared/', import.meta.url));

export const sharedPath = (rel: string): string => `${SHARED_DIR.replace(/\/$/, '')}/${rel}`;
