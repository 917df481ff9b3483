// A file a setting names, kept parsed and read again when it changes (another inode, size or
// change time; looked at at most once per interval), so that edits need no restart. It is opened
// under the rule of allowed-files.ts every time it is looked at. A file refused at a look (gone,
// replaced by a link out of the allowed directories, grown too big …) refuses every use until a
// later look finds it right again: nothing of the earlier file is served meanwhile, and a missing
// file is an error, never an empty result.
import type { AllowedFiles } from './allowed-files.ts';

const RECHECK_MS = 1000;

export class WatchedFile<T> {
  readonly path: string;
  private readonly files: AllowedFiles;
  private readonly setting: string;
  private readonly parse: (text: string) => T;
  private parsed: T | undefined;
  private stamp = '';
  private checkedAt = 0;
  /** Why the file was refused at the last look. */
  private refused: Error | undefined;

  /** Reads the file at once: a file that cannot be read fails here. */
  constructor(files: AllowedFiles, path: string, setting: string, parse: (text: string) => T) {
    this.files = files;
    this.path = path;
    this.setting = setting;
    this.parse = parse;
    this.reload();
  }

  /** Reads the file when it is not the one read last time. */
  private reload(): void {
    const file = this.files.open(this.path, this.setting);
    let text: string;
    try {
      const st = file.stats;
      const stamp = `${st.dev}:${st.ino}:${st.mtimeMs}:${st.size}`;
      if (stamp === this.stamp) return;
      text = file.read().toString('utf8');
      this.stamp = stamp;
    } finally {
      file.close();
    }
    this.parsed = this.parse(text);
  }

  /** The parsed content of the file as it is now; throws why the file is refused. */
  current(): T {
    const now = Date.now();
    if (now - this.checkedAt >= RECHECK_MS) {
      this.checkedAt = now;
      try {
        this.reload();
        this.refused = undefined;
      } catch (e) {
        this.refused = e as Error;
      }
    }
    if (this.refused) throw this.refused;
    return this.parsed as T;
  }
}
