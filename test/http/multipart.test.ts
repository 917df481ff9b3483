import { describe, expect, it } from 'vitest';
import { RequestBodyError } from '../../src/errors.ts';
import { parseMultipart } from '../../src/http/multipart.ts';

/** A multipart body as the Fetch API sends it. */
async function body(append: (form: FormData) => void) {
  const form = new FormData();
  append(form);
  const req = new Request('http://x/', { method: 'POST', body: form });
  return { type: req.headers.get('content-type')!, bytes: Buffer.from(await req.arrayBuffer()) };
}

describe('parseMultipart', () => {
  it('reads fields and files in order, names and text as sent', async () => {
    const b = await body((f) => {
      f.append('a', 'é%2541');
      f.append('a', 'second');
      f.append('n'.repeat(300), 'v'.repeat(2_000_000));
      f.append('file', new Blob(['\uFEFFcontent ü']), 'dir/tökens.csv');
    });
    const form = await parseMultipart(b.bytes, b.type, 10);
    expect(form.fields.map(([k, v]) => [k.length, v.length])).toEqual([
      [1, 6],
      [1, 6],
      [300, 2_000_000],
    ]);
    expect(form.fields[0]).toEqual(['a', 'é%2541']);
    // As a Blob's text(): UTF-8, the byte order mark dropped; the file name as sent.
    expect(form.files).toEqual([['file', { name: 'dir/tökens.csv', content: 'content ü' }]]);
  });

  it('refuses more parts than allowed, files counted, with HTTP 400', async () => {
    const b = await body((f) => {
      f.append('a', '1');
      f.append('file', new Blob(['x']), 'x.txt');
      f.append('c', '3');
    });
    expect((await parseMultipart(b.bytes, b.type, 3)).fields).toHaveLength(2);
    const e = await parseMultipart(b.bytes, b.type, 2).catch((x) => x);
    expect(e).toBeInstanceOf(RequestBodyError);
    expect([e.httpStatus, e.message]).toEqual([400, 'The request has more than 1000 parameters']);
  });

  it('refuses a body without its boundary, cut short, or of another type as malformed', async () => {
    const cut = '--zzz\r\nContent-Disposition: form-data; name="f"; filename="x"\r\n\r\nno closing';
    for (const [type, text] of [
      ['multipart/form-data; boundary=xyz', 'garbage without boundary'],
      ['multipart/form-data; boundary=zzz', cut],
      ['multipart/form-data', 'x'],
    ] as const) {
      const e = await parseMultipart(Buffer.from(text), type, 10).catch((x) => x);
      expect(e).toBeInstanceOf(RequestBodyError);
      expect([e.httpStatus, e.message]).toEqual([400, 'The multipart body is malformed']);
    }
  });
});
