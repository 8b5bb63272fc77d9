export * from './types.js';
export { FolderSource, SourceWriteError, type FolderSourceOptions } from './folder.js';
export { parseManifestFile, type ParsedFile } from './parse.js';
