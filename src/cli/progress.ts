// A one-line progress indicator on standard error, drawn only when it is a terminal so that
// scripts and logs stay clean.
export class Progress {
  private readonly label: string;
  private readonly total: number;
  private readonly tty = process.stderr.isTTY === true;
  private last = 0;

  constructor(label: string, total: number) {
    this.label = label;
    this.total = total;
  }

  update(done: number): void {
    const now = Date.now();
    if (!this.tty || now - this.last < 100) return;
    this.last = now;
    const pct = this.total > 0 ? Math.min(100, Math.floor((done * 100) / this.total)) : 100;
    const width = 30;
    const filled = Math.round((pct * width) / 100);
    process.stderr.write(
      `\r${this.label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${pct}% ${done}/${this.total}`,
    );
  }

  done(n: number): void {
    if (this.tty) process.stderr.write(`\r${this.label} done: ${n}${' '.repeat(40)}\n`);
  }
}
