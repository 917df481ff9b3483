// Files the server opens because a setting names them: the allowed directories, regular files only,
// never the server's own, read with a size limit (files.allowed_dirs, files.max_bytes), and kept
// parsed while they do not change (WatchedFile). Every layer that opens such a file uses this
// folder, which imports nothing of authsrv but src/errors.ts.
export { type AllowedFile, AllowedFiles, type FileRule, readRegularFile } from './allowed-files.ts';
export {
  ConfinedFileError,
  executableInside,
  executablesIn,
  isInside,
  nameInside,
  writeFileInside,
} from './confined.ts';
export { WatchedFile } from './watched-file.ts';
