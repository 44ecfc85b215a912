// Just enough multipart/form-data parsing (RFC 7578) for the fake OpenAI edits endpoint: fields
// and files by name, each file with its declared Content-Type. Node side.

export interface FormPart {
  name: string;
  filename?: string;
  type?: string;
  data: Buffer;
}

export function boundaryOf(contentType: string | undefined): string | null {
  const match = /^multipart\/form-data\s*;.*boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType ?? "");
  return match ? (match[1] ?? match[2] ?? null) : null;
}

export function parseMultipart(body: Buffer, boundary: string): FormPart[] {
  const delimiter = Buffer.from(`--${boundary}`);
  const parts: FormPart[] = [];
  let start = body.indexOf(delimiter);
  while (start >= 0) {
    const afterDelimiter = start + delimiter.length;
    if (body.subarray(afterDelimiter, afterDelimiter + 2).toString() === "--") break; // closing delimiter
    const next = body.indexOf(delimiter, afterDelimiter);
    if (next < 0) throw new Error("multipart body is not terminated");
    const part = body.subarray(afterDelimiter + 2, next - 2); // skip CRLF after the delimiter, before the next
    const split = part.indexOf("\r\n\r\n");
    if (split < 0) throw new Error("multipart part without headers");
    const headers = part.subarray(0, split).toString("latin1");
    const disposition = /content-disposition:\s*form-data;([^\r\n]*)/i.exec(headers)?.[1] ?? "";
    const name = /\bname="([^"]*)"/i.exec(disposition)?.[1];
    if (name === undefined) throw new Error("multipart part without a name");
    parts.push({
      name,
      filename: /\bfilename="([^"]*)"/i.exec(disposition)?.[1],
      type: /content-type:\s*([^\r\n]+)/i.exec(headers)?.[1]?.trim(),
      data: part.subarray(split + 4),
    });
    start = next;
  }
  return parts;
}
