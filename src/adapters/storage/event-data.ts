// How an event's `data` (a JSON document) is stored in events.data. Written compactly: a BLOB of one marker byte
// (EVENT_DATA_V1) then the JSON text's UTF-8 bytes as deflate-raw (RFC 1951) with the preset dictionary below.
// Rows written before (TEXT: the JSON itself) read as they are, so a database is never rewritten for this.
//
// The same approach as sealed personal data (src/adapters/crypto/envelope.ts, "v2:"): the dictionary is passed to
// the compressor, and inflating never relies on node:zlib's `dictionary` option (Deno's node:zlib ignores it for raw
// deflate) but prefixes the dictionary as one stored deflate block and drops its bytes from the output. A value
// written under Deno (no dictionary: just less compressed) reads the same everywhere.
//
// Only the events repositories (src/adapters/storage/repos/events.ts, postgres/repos/events.ts) decode, and only the
// mailboxes' event inserts encode (`eventDataWriter`); what every reader gets (webhook bodies, the stream's `data:` lines, event pages) is the JSON text as it was
// written, byte for byte.
import { presetDeflate } from "../deflate.ts";

/** The first byte of a compact value: deflate-raw with DICTIONARY and a 4 KiB window. */
export const EVENT_DATA_V1 = 0x01;

/**
 * The preset dictionary of EVENT_DATA_V1 values: the keys and common words of the events' data (the transfer snapshot
 * last: the most frequent, and the nearest to the value). It is fixed: a value written with it is only read with
 * these exact bytes, so it must never change (a new dictionary takes a new marker byte).
 */
const DICTIONARY = new TextEncoder().encode(
  // Case events.
  '{"id":"case_","caseNumber":"CASE-","type":"","category":"","priority":"medium","status":"open","resolution":null,"assigneeId":null,' +
    '"ruleId":null,"transferIds":["trf_"],"source":"","createdAt":"20","updatedAt":"20","resolvedAt":null}' +
    // compliance.screening_complete.
    '{"transferId":"trf_","direction":"incoming","stage":"precheck","outcome":"approved","state":"queued","rulesEvaluated":0,' +
    '"matchedRules":[{"ruleId":"rul_","action":"flag","category":"","severity":""}],"checks":[{"id":"","integration":"","status":"","error":null}],"completedAt":"20' +
    // Words of states and statuses.
    '"processing","exchanging","awaiting_counterparty","accepted","rejected","cancelled","failed","held","flagged","blocked","pending","not_required",' +
    // The transfer summary: two per create, the most frequent.
    '{"id":"trf_","externalId":null,"direction":"outgoing","state":"completed","amount":"0.","asset":"ETH","network":"ethereum",' +
    '"originatingVaspId":"","originatingVaspName":"","beneficiaryVaspId":"pending","beneficiaryVaspName":null,' +
    '"complianceStatus":"approved","originatorStatus":null,"beneficiaryStatus":null,"createdAt":"20","updatedAt":"20',
);
/** deflate-raw with DICTIONARY and a 4 KiB window; inflated the same way on every runtime (src/adapters/deflate.ts). */
const V1 = presetDeflate(DICTIONARY, {
  windowBits: 12,
  memLevel: 4,
  level: 6,
  probe: '{"id":"trf_probe","externalId":null,"direction":"outgoing","state":"completed","amount":"0.01","asset":"ETH","network":"ethereum"}',
});
/** Shorter documents gain nothing (a marker byte and a deflate block cost about as much as they save). */
const MIN_COMPRESS = 48;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** What to store in events.data for this JSON text: the compact BLOB, or the text itself when it is short. */
export function encodeEventData(json: string): string | Uint8Array {
  if (json.length < MIN_COMPRESS) return json;
  const packed = V1.deflate(encoder.encode(json));
  const out = new Uint8Array(1 + packed.length);
  out[0] = EVENT_DATA_V1;
  out.set(packed, 1);
  return out;
}

/** The JSON text an events.data value holds, whichever way it was written (TEXT as it is; EVENT_DATA_V1 inflated). */
export function decodeEventData(stored: string | Uint8Array | ArrayBuffer): string {
  if (typeof stored === "string") return stored;
  const bytes = stored instanceof Uint8Array ? stored : new Uint8Array(stored);
  if (bytes.length === 0 || bytes[0] !== EVENT_DATA_V1) throw new Error("events.data: unknown encoding");
  let out: Uint8Array;
  try {
    out = V1.inflate(bytes.subarray(1));
  } catch {
    throw new Error("events.data: short stream");
  }
  return decoder.decode(out);
}

/**
 * An events.data value as an engine that stores every value as bytes keeps it (PostgreSQL: bytea): the compact form
 * as it is, the JSON text as its UTF-8 bytes. JSON text never starts with the EVENT_DATA_V1 byte, so the two never mix.
 */
export function eventDataBytes(stored: string | Uint8Array): Uint8Array {
  return typeof stored === "string" ? encoder.encode(stored) : stored;
}

/** The JSON text of a value `eventDataBytes` made: the compact form inflated, else the bytes as UTF-8 text. */
export function decodeEventBytes(bytes: Uint8Array): string {
  return bytes.length > 0 && bytes[0] === EVENT_DATA_V1 ? decodeEventData(bytes) : decoder.decode(bytes);
}

/**
 * An event's data as stored (JSON, or compacted with `compact`), serialised once for consecutive events sharing the
 * object: events emitted together often share one (a create's two). Only within one synchronous turn (one group
 * commit's inserts): an object changed later is serialised again.
 */
export function eventDataWriter(compact: boolean): (data: unknown) => string | Uint8Array {
  let last: { of: unknown; stored: string | Uint8Array } | null = null;
  return (data) => {
    if (last !== null && last.of === data) return last.stored;
    const json = JSON.stringify(data);
    const stored = compact ? encodeEventData(json) : json;
    if (last === null) queueMicrotask(() => (last = null));
    last = { of: data, stored };
    return stored;
  };
}
