/**
 * Image → command: nothing is pulled; an image name maps to the argv that plays its entrypoint. The
 * Steward image runs this checkout's bin/steward.mjs on the project's Node.js 24.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** The project's Node.js (node_modules/.bin/node, Node 24), else the one running us. */
export function projectNode(): string {
  const bin = `${REPO_ROOT}node_modules/.bin/node`;
  return existsSync(bin) ? bin : process.execPath;
}

export const STEWARD_IMAGE = 'ghcr.io/steward-dev/steward';

/** The image's repository without tag or digest: `ghcr.io/x/y:1.2@sha256:..` → `ghcr.io/x/y`. */
export function imageName(image: string): string {
  const noDigest = image.split('@')[0]!;
  const slash = noDigest.lastIndexOf('/');
  const colon = noDigest.lastIndexOf(':');
  return colon > slash ? noDigest.slice(0, colon) : noDigest;
}

/**
 * The entrypoint for `image`: an exact match in `mappings` first, then a match on the name without tag;
 * undefined when unmapped (the container waits with ErrImagePull).
 */
export function entrypointFor(image: string, mappings: Record<string, string[]>): string[] | undefined {
  const all: Record<string, string[]> = {
    [STEWARD_IMAGE]: [projectNode(), `${REPO_ROOT}bin/steward.mjs`],
    ...mappings,
  };
  return all[image] ?? all[imageName(image)];
}

/** Parses `NAME=COMMAND` (the CLI's --image): the command splits on spaces. */
export function parseImageOption(v: string): [string, string[]] {
  const eq = v.indexOf('=');
  if (eq <= 0 || eq === v.length - 1) throw new Error(`--image wants NAME=COMMAND, not ${v}`);
  return [
    v.slice(0, eq),
    v
      .slice(eq + 1)
      .trim()
      .split(/\s+/),
  ];
}
