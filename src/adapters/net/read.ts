// Reading a body of at most `max` bytes, counted while it streams in (never read whole first, whatever length was
// declared): the one reader of the API, the provider callbacks, every provider and screening client and the FX sources.

/** The bytes, or null once they pass `max` (the stream is then cancelled, not read further). */
export async function readStreamCapped(body: ReadableStream<Uint8Array> | null, max: number): Promise<Uint8Array | null> {
  if (!body) return new Uint8Array();
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel().catch(() => {});
      return null;
    }
    chunks.push(value);
  }
  if (chunks.length === 1) return chunks[0];
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}

/**
 * A request's or response's body, or null when it is larger than `max` bytes. A body whose declared length is within
 * `max` and that is not content-encoded is framed by that length, so it is read in one piece (checked again); a
 * compressed one is decompressed as it is read, so only the stream can count it.
 */
export async function readBodyCapped(m: Request | Response, max: number): Promise<Uint8Array | null> {
  const declared = m.headers.get("content-length");
  if (declared !== null && /^\d+$/.test(declared)) {
    if (Number(declared) > max) return null;
    const encoding = m.headers.get("content-encoding");
    if (encoding === null || encoding === "identity") {
      const whole = new Uint8Array(await m.arrayBuffer());
      return whole.byteLength > max ? null : whole;
    }
  }
  return readStreamCapped(m.body, max);
}

/** A response's body as text (UTF-8), or null when it is larger than `max` bytes. */
export async function readTextCapped(res: Response, max: number): Promise<string | null> {
  const bytes = await readBodyCapped(res, max);
  return bytes === null ? null : new TextDecoder().decode(bytes);
}
