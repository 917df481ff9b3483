// WebHook: POSTs the configured data to a URL (reference 7.1), as JSON or as a form, with tags
// replaced when `replace` is set. The whole data is sent; a 2xx answer is success.
import { type EventHandlerModule, type EventTags, optionIsTrue, replaceTags } from './module.ts';

const JSON_TYPE = 'application/json';
const FORM_TYPE = 'application/x-www-form-urlencoded';
/** How long one POST may take before it counts as failed. */
const TIMEOUT_MS = 10_000;

/** The content type an option names (privacyIDEA's legacy `json`/`urlencoded` too), or undefined. */
function contentType(option: string | undefined): string | undefined {
  if (option === JSON_TYPE || option === 'json') return JSON_TYPE;
  if (option === FORM_TYPE || option === 'urlencoded') return FORM_TYPE;
  return undefined;
}

/** Tags replaced in every string of a JSON value, so that a value cannot break its syntax. */
function replaceInJson(value: unknown, tags: EventTags): unknown {
  if (typeof value === 'string') return replaceTags(value, tags);
  if (Array.isArray(value)) return value.map((v) => replaceInJson(v, tags));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, replaceInJson(v, tags)]));
  }
  return value;
}

function jsonBody(data: string, replace: boolean, tags: EventTags): string {
  const parsed: unknown = JSON.parse(data);
  return JSON.stringify(replace ? replaceInJson(parsed, tags) : parsed);
}

/** A form body: data given as a JSON object becomes its fields; other data is sent as written. */
function formBody(data: string, replace: boolean, tags: EventTags): string {
  const fill = (s: string) => (replace ? replaceTags(s, tags) : s);
  let parsed: unknown;
  try {
    parsed = JSON.parse(data);
  } catch {
    return fill(data);
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return fill(data);
  const form = new URLSearchParams();
  for (const [k, v] of Object.entries(parsed))
    form.append(k, fill(typeof v === 'string' ? v : JSON.stringify(v)));
  return form.toString();
}

export const webhookModule: EventHandlerModule = {
  name: 'WebHook',
  positions: ['post', 'pre'],
  actions: {
    post_webhook: {
      URL: { type: 'str', required: true, description: 'The URL the data is posted to.' },
      content_type: {
        type: 'str',
        required: true,
        description: 'How the data is sent.',
        value: [JSON_TYPE, FORM_TYPE],
      },
      replace: { type: 'bool', required: true, description: 'Replace tags like {serial} in the data.' },
      data: { type: 'text', required: true, description: 'The data to post (JSON for application/json).' },
    },
  },
  async run(_action, run) {
    const url = run.options.URL ?? '';
    const type = contentType(run.options.content_type);
    if (!/^https?:\/\//i.test(url)) throw new Error(`WebHook: not an http(s) URL: ${url}`);
    if (!type) throw new Error(`WebHook: unknown content_type ${run.options.content_type}`);
    const replace = optionIsTrue(run.options.replace);
    const data = run.options.data ?? '';
    const body = type === JSON_TYPE ? jsonBody(data, replace, run.tags) : formBody(data, replace, run.tags);
    const answer = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': type },
      body,
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    await answer.arrayBuffer();
    return answer.ok;
  },
};
