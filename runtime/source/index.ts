export * from './types.js';
export { FolderSource, SourceWriteError, type FolderSourceOptions } from './folder.js';
export { parseManifestFile, type ForeignDocument, type ParsedFile } from './parse.js';
export { builtinPackDir, checkManifestFolders, manifestFolders, missingManifestFolders } from './folders.js';
export { KubernetesSource, type KubernetesSourceOptions, type SecretLookup } from './kube.js';
export { LayeredSource, withBuiltinPack, type BuiltinPackOptions, type LayeredSourceOptions } from './layered.js';
