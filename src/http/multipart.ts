// multipart/form-data bodies, read with busboy: its own part limit refuses a body with more parts
// than the request may still hold, and its other limits are lifted so that nothing is cut short
// silently (the body's size is bounded already). Fields and files come in the order they were sent;
// uploaded files are decoded as UTF-8 text, a byte order mark dropped, as a Blob's text() does.
import { Busboy } from '@fastify/busboy';
import { RequestBodyError } from '../errors.ts';
import { tooManyParameters } from './request-limits.ts';

export interface UploadedFile {
  name: string;
  content: string;
}

export interface MultipartForm {
  fields: [string, string][];
  files: [string, UploadedFile][];
}

const malformed = () => RequestBodyError.malformed('The multipart body is malformed');

/** The body is handed to the parser in slices, so that a refused one is not parsed to its end. */
const SLICE_BYTES = 64 * 1024;

/** Parses a buffered multipart body of at most `maxParts` fields and files. */
export async function parseMultipart(
  body: Buffer,
  contentType: string,
  maxParts: number,
): Promise<MultipartForm> {
  const parser = openParser(contentType, maxParts);
  const form: MultipartForm = { fields: [], files: [] };
  const uploads: Promise<boolean>[] = [];
  let refusal: RequestBodyError | undefined;
  parser.on('field', (name, value) => form.fields.push([name, value]));
  parser.on('file', (name, stream, fileName) => {
    const file: UploadedFile = { name: fileName, content: '' };
    form.files.push([name, file]);
    // Settles either way, so that an upload cut short by a refusal is no unhandled rejection.
    const read = stream.toArray().then(
      (chunks) => {
        file.content = new TextDecoder().decode(Buffer.concat(chunks as Buffer[]));
        return true;
      },
      () => false,
    );
    uploads.push(read);
  });
  parser.on('partsLimit', () => {
    refusal ??= tooManyParameters();
  });
  const finished = new Promise<void>((resolve) => {
    parser.on('finish', resolve);
    parser.on('error', () => {
      refusal ??= malformed();
      resolve();
    });
  });
  for (let at = 0; at < body.length && !refusal; at += SLICE_BYTES) {
    await new Promise((written) => parser.write(body.subarray(at, at + SLICE_BYTES), written));
  }
  if (!refusal) {
    parser.end();
    await finished;
  }
  if (refusal) {
    parser.destroy();
    throw refusal;
  }
  if (!(await Promise.all(uploads)).every(Boolean)) throw malformed();
  return form;
}

function openParser(contentType: string, maxParts: number): ReturnType<typeof Busboy> {
  try {
    return Busboy({
      headers: { 'content-type': contentType },
      preservePath: true,
      // A part is a file when it names one, whatever its content type (as the Fetch API reads it).
      isPartAFile: (_field, _type, fileName) => fileName !== undefined,
      limits: { parts: maxParts, fieldNameSize: Infinity, fieldSize: Infinity },
    });
  } catch {
    // No boundary, or not a multipart type at all.
    throw malformed();
  }
}
