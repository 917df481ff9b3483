// A parser of the Prometheus text format 0.0.4 for the tests that scrape GET /metrics (test/e2e/
// metrics.test.ts checks the parser itself), written from the format's description and strict
// about it: every line is a comment (# HELP / # TYPE), a sample, or empty; every sample belongs to
// a family whose TYPE came before it; label values are escaped as the format says.

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Exposition {
  types: Map<string, string>;
  samples: Sample[];
}

const NAME = '[a-zA-Z_:][a-zA-Z0-9_:]*';
const HELP_LINE = new RegExp(`^# HELP (${NAME}) (.*)$`);
const TYPE_LINE = new RegExp(`^# TYPE (${NAME}) (counter|gauge|histogram|summary|untyped)$`);
const SAMPLE_LINE = new RegExp(`^(${NAME})(?:\\{(.*)\\})? (\\S+)(?: (-?\\d+))?$`);
const LABEL = /^([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\["\\n])*)"(,|$)/;
const SUFFIXES: Readonly<Record<string, readonly string[]>> = {
  counter: [''],
  gauge: [''],
  untyped: [''],
  histogram: ['_bucket', '_sum', '_count'],
  summary: ['', '_sum', '_count'],
};

function parseLabels(text: string, line: string): Record<string, string> {
  const labels: Record<string, string> = {};
  let rest = text;
  while (rest !== '') {
    const m = LABEL.exec(rest);
    if (!m) throw new Error(`malformed labels in: ${line}`);
    const [all, name, raw] = m as unknown as [string, string, string];
    if (name in labels) throw new Error(`label ${name} twice in: ${line}`);
    labels[name] = raw.replace(/\\(["\\n])/g, (_, c: string) => (c === 'n' ? '\n' : c));
    rest = rest.slice(all.length);
  }
  return labels;
}

function parseValue(text: string, line: string): number {
  // Prometheus reads values with Go's ParseFloat, which takes Inf and NaN in any case: prom-client
  // writes an empty mean as `Nan`.
  if (/^\+?inf$/i.test(text)) return Number.POSITIVE_INFINITY;
  if (/^-inf$/i.test(text)) return Number.NEGATIVE_INFINITY;
  if (/^nan$/i.test(text)) return Number.NaN;
  if (!/^-?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/.test(text)) throw new Error(`malformed value in: ${line}`);
  return Number(text);
}

export function parseExposition(text: string): Exposition {
  if (!text.endsWith('\n')) throw new Error('the exposition does not end with a newline');
  const types = new Map<string, string>();
  const samples: Sample[] = [];
  for (const line of text.slice(0, -1).split('\n')) {
    if (line === '' || HELP_LINE.test(line)) continue;
    const t = TYPE_LINE.exec(line);
    if (t) {
      if (types.has(t[1]!)) throw new Error(`TYPE of ${t[1]} twice`);
      types.set(t[1]!, t[2]!);
      continue;
    }
    if (line.startsWith('#')) throw new Error(`unknown comment line: ${line}`);
    const m = SAMPLE_LINE.exec(line);
    if (!m) throw new Error(`malformed sample line: ${line}`);
    const name = m[1]!;
    const family = [...types.entries()].find(([f, type]) =>
      SUFFIXES[type]!.some((suffix) => name === f + suffix),
    );
    if (!family) throw new Error(`sample ${name} has no TYPE line before it`);
    samples.push({ name, labels: parseLabels(m[2] ?? '', line), value: parseValue(m[3]!, line) });
  }
  return { types, samples };
}

/** The value of the one sample of `name` whose labels include `labels` (0 when there is none). */
export function sampleValue(e: Exposition, name: string, labels: Record<string, string> = {}): number {
  const found = e.samples.filter(
    (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  );
  if (found.length > 1) throw new Error(`${found.length} samples of ${name} match ${JSON.stringify(labels)}`);
  return found[0]?.value ?? 0;
}

/** The sum over every sample of `name` whose labels include `labels`. */
export function sumOf(e: Exposition, name: string, labels: Record<string, string> = {}): number {
  return e.samples
    .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    .reduce((a, s) => a + s.value, 0);
}
