/**
 * Builds the container image from the Dockerfile, unchanged, with buildah and without a registry for the base image
 * (docs/image.md). `npm run image:build`; `scripts/image-test.ts` (`npm run image:test`) builds and then runs it.
 *
 * The base the Dockerfile names (node:24-bookworm-slim) is made here when it is not in local storage: a Debian
 * bookworm root filesystem from `debootstrap --variant=minbase` (cached under node_modules/.cache/steward/image-base,
 * it takes a minute or more) plus this machine's Node.js 24 and npm, imported as docker.io/library/node:24-bookworm-slim.
 * Containers run with runc, chroot isolation and vfs storage: crun and overlay fail on this machine's cgroup layout.
 *
 * `npm ci` inside the build reads the machine's npm configuration and CA bundle from build-time bind mounts
 * (`buildah bud -v`), never copied into a layer.
 *
 * Settings (environment): STEWARD_IMAGE (default localhost/steward:<version>), STEWARD_DEBIAN_MIRROR
 * (default http://deb.debian.org/debian), STEWARD_IMAGE_REBASE=1 (remake the base image from the cached rootfs).
 */
import { spawnSync, type StdioOptions } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const PKG = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
/** The base image the Dockerfile's FROM names, fully qualified. */
export const BASE_IMAGE = 'docker.io/library/node:24-bookworm-slim';
export const IMAGE = process.env.STEWARD_IMAGE ?? `localhost/steward:${PKG.version}`;
const CACHE = join(ROOT, 'node_modules', '.cache', 'steward', 'image-base');
const MIRROR = process.env.STEWARD_DEBIAN_MIRROR ?? 'http://deb.debian.org/debian';
const PACKAGES = ['buildah', 'podman', 'runc', 'debootstrap', 'uidmap'];
/** vfs storage and runc for every buildah/podman call (overlay and crun fail on this machine). */
export const STORAGE = ['--storage-driver', 'vfs'];

export function log(message: string): void {
  console.log(`[image] ${message}`);
}

export function run(
  cmd: string,
  args: readonly string[],
  options: { input?: string; stdio?: StdioOptions } = {},
): string {
  const result = spawnSync(cmd, args, {
    input: options.input,
    stdio: options.stdio ?? ['pipe', 'pipe', 'inherit'],
    encoding: 'utf8',
    maxBuffer: 1 << 28,
  });
  if (result.error) throw result.error;
  if (result.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${result.status ?? result.signal}`);
  return result.stdout ?? '';
}

function has(cmd: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0;
}

/** Installs buildah, podman, runc, debootstrap and uidmap with apt-get when one is missing; the reason when it cannot. */
export function ensureTools(): string | undefined {
  const missing = ['buildah', 'podman', 'runc', 'debootstrap', 'newuidmap'].filter((c) => !has(c));
  if (missing.length === 0) return undefined;
  if (!has('apt-get')) return `missing ${missing.join(', ')} and no apt-get to install them`;
  log(`installing ${PACKAGES.join(' ')} (missing: ${missing.join(', ')})`);
  const [cmd, ...args] = [...(process.getuid?.() === 0 ? [] : ['sudo', '-n']), 'apt-get', 'install', '-y', ...PACKAGES];
  const install = spawnSync(cmd, args, {
    stdio: 'inherit',
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
  if (install.status !== 0)
    return `apt-get install ${PACKAGES.join(' ')} failed (exit ${install.status ?? install.signal})`;
  const still = ['buildah', 'podman', 'runc', 'debootstrap', 'newuidmap'].filter((c) => !has(c));
  return still.length ? `still missing after apt-get: ${still.join(', ')}` : undefined;
}

/** This machine's Node.js 24 binary: the one running this script (npm scripts put node_modules/.bin first). */
function nodeBinary(): string {
  if (Number(process.versions.node.split('.')[0]) < 24)
    throw new Error(`the image base needs Node.js 24; this is ${process.version} (run through npm)`);
  return realpathSync(process.execPath);
}

/** npm's package folder: the npm that runs this script's `npm run`, else the one on PATH. */
function npmPackageDir(): string {
  const cli = process.env.npm_execpath ?? realpathSync(run('sh', ['-c', 'command -v npm']).trim());
  return dirname(dirname(realpathSync(cli)));
}

/** The debootstrap root filesystem, made once and cached (a folder published by rename when debootstrap succeeds). */
function ensureRootfs(): string {
  const rootfs = join(CACHE, 'rootfs');
  // NB: the root folder's mode becomes the image's `/`: mkdtemp's 0700 would let only root in.
  if (existsSync(join(rootfs, 'etc', 'debian_version'))) {
    chmodSync(rootfs, 0o755);
    return rootfs;
  }
  mkdirSync(CACHE, { recursive: true });
  const work = mkdtempSync(join(CACHE, '.debootstrap-'));
  chmodSync(work, 0o755);
  log(`debootstrap --variant=minbase bookworm (${MIRROR}); cached in ${rootfs}`);
  const started = performance.now();
  try {
    run('debootstrap', ['--variant=minbase', 'bookworm', work, MIRROR], { stdio: ['ignore', 'ignore', 'inherit'] });
  } catch (err) {
    rmSync(work, { recursive: true, force: true });
    throw err;
  }
  renameSync(work, rootfs);
  log(`debootstrap took ${Math.round((performance.now() - started) / 1000)} s`);
  return rootfs;
}

function baseLabel(): string {
  const npm = (JSON.parse(readFileSync(join(npmPackageDir(), 'package.json'), 'utf8')) as { version: string }).version;
  return `node ${process.version}, npm ${npm}, debootstrap minbase bookworm`;
}

/**
 * The base image in local storage, made from the cached rootfs plus Node.js and npm unless an image of that name
 * exists already (a real node:24-bookworm-slim pulled earlier is used as is). Documentation, locales, apt lists and
 * .deb files are left out, as the slim images do.
 */
export function ensureBase(): void {
  const rebase = process.env.STEWARD_IMAGE_REBASE === '1';
  const exists = spawnSync('podman', [...STORAGE, 'image', 'exists', BASE_IMAGE]).status === 0;
  if (exists && !rebase) {
    log(`base ${BASE_IMAGE} is in local storage`);
    return;
  }
  const rootfs = ensureRootfs();
  const stage = mkdtempSync(join(tmpdir(), 'steward-image-base-'));
  try {
    const local = join(stage, 'usr', 'local');
    // NB: the rootfs's own usr/local (empty folders) is left out below: a tar with two entries for a path fails to import.
    for (const d of ['bin', 'etc', 'games', 'include', 'lib/node_modules', 'sbin', 'share', 'src'])
      mkdirSync(join(local, d), { recursive: true });
    copyFileSync(nodeBinary(), join(local, 'bin', 'node'));
    cpSync(npmPackageDir(), join(local, 'lib', 'node_modules', 'npm'), { recursive: true });
    symlinkSync('../lib/node_modules/npm/bin/npm-cli.js', join(local, 'bin', 'npm'));
    symlinkSync('../lib/node_modules/npm/bin/npx-cli.js', join(local, 'bin', 'npx'));
    const tarball = join(stage, 'base.tar');
    const exclude = [
      './usr/local',
      './var/cache/apt/archives/*.deb',
      './var/lib/apt/lists/*',
      './usr/share/doc/*',
      './usr/share/man/*',
      './usr/share/locale/*',
      './usr/share/info/*',
    ];
    run('tar', ['-C', rootfs, ...exclude.flatMap((e) => ['--exclude', e]), '--numeric-owner', '-cf', tarball, '.']);
    run('tar', ['-C', stage, '--numeric-owner', '--owner=0', '--group=0', '-rf', tarball, './usr/local']);
    log(`importing ${BASE_IMAGE} (${baseLabel()})`);
    run(
      'podman',
      [
        ...STORAGE,
        'import',
        '--change',
        'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
        '--change',
        `LABEL dev.steward.image-base="${baseLabel()}"`,
        '--change',
        'CMD ["node"]',
        tarball,
        BASE_IMAGE,
      ],
      { stdio: ['ignore', 'ignore', 'inherit'] },
    );
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

/**
 * The npm configuration `npm ci` needs inside the build: the user's and the global npmrc, plus `cafile` pointing at
 * the machine's CA bundle, which is mounted beside it. Returns the `-v` flags; the folder is removed by the caller.
 */
function npmMounts(dir: string): string[] {
  const parts: string[] = [];
  for (const file of [join(homedir(), '.npmrc'), npmConfig('globalconfig')]) {
    if (file && existsSync(file)) parts.push(readFileSync(file, 'utf8'));
  }
  const mounts: string[] = [];
  const ca = process.env.NODE_EXTRA_CA_CERTS ?? npmConfig('cafile');
  const config = parts
    .join('\n')
    .split('\n')
    .filter((l) => !/^\s*(cafile|globalconfig|userconfig|prefix|cache)\s*=/.test(l));
  if (ca && existsSync(ca)) {
    copyFileSync(ca, join(dir, 'ca.pem'));
    mounts.push('-v', `${join(dir, 'ca.pem')}:/run/steward-build/ca.pem:ro`);
    config.push('cafile=/run/steward-build/ca.pem');
  }
  writeFileSync(join(dir, 'npmrc'), `${config.join('\n')}\n`, { mode: 0o600 });
  mounts.push('-v', `${join(dir, 'npmrc')}:/root/.npmrc:ro`);
  return mounts;
}

function npmConfig(key: string): string | undefined {
  const value = spawnSync('npm', ['config', 'get', key], { encoding: 'utf8' }).stdout?.trim();
  return value && value !== 'undefined' && value !== 'null' ? value : undefined;
}

function revision(): string {
  const result = spawnSync('git', ['-C', ROOT, 'rev-parse', 'HEAD'], { encoding: 'utf8' });
  return result.status === 0 ? result.stdout.trim() : 'unknown';
}

/** `buildah bud` of the Dockerfile as it is, the base from local storage only. */
export function buildImage(image = IMAGE): void {
  const dir = mkdtempSync(join(tmpdir(), 'steward-image-npm-'));
  try {
    const started = performance.now();
    run(
      'buildah',
      [
        ...STORAGE,
        'bud',
        '--runtime',
        'runc',
        '--isolation',
        'chroot',
        '--network',
        'host',
        '--pull=never',
        ...npmMounts(dir),
        '--build-arg',
        `VERSION=${PKG.version}`,
        '--build-arg',
        `REVISION=${revision()}`,
        '--build-arg',
        `CREATED=${new Date().toISOString()}`,
        '-f',
        join(ROOT, 'Dockerfile'),
        '-t',
        image,
        ROOT,
      ],
      { stdio: ['ignore', 'inherit', 'inherit'] },
    );
    log(`built ${image} in ${Math.round((performance.now() - started) / 1000)} s`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The image's size in bytes, as podman reports it. */
export function imageSize(image = IMAGE): number {
  return Number(run('podman', [...STORAGE, 'image', 'inspect', '--format', '{{.Size}}', image]).trim());
}

export function buildAll(): void {
  const missing = ensureTools();
  if (missing) throw new Error(`cannot build the image: ${missing}`);
  ensureBase();
  buildImage();
  log(`${IMAGE}: ${(imageSize() / 1e6).toFixed(1)} MB`);
}

if (process.argv[1] && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    buildAll();
  } catch (err) {
    console.error(`[image] ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  }
}
