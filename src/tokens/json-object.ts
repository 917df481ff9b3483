// A JSON object kept by a token type (a questionnaire, the tokens a 4eyes round has seen): what
// is not a readable object is an empty one.
export function jsonObject(text: string): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(text);
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
