// JSON response queries (Part 3 "screening_c screening" Rules): dotted paths into a vendor's response, `[]` flattening arrays.
// `content.data.total_hits` reads one value; `content.data.hits[].doc.types[]` lists every hit's types (empty when none).

/** A segment is a property name (or an array index), optionally followed by `[]`. */
const SEGMENT = /^[A-Za-z0-9_$-]+(\[\])?$/;

export interface PathSegment {
  key: string;
  flatten: boolean;
}

/** The parsed path, or null when it is not one (empty segments, brackets elsewhere, spaces). */
export function parsePath(path: string): PathSegment[] | null {
  if (path.length === 0) return null;
  const out: PathSegment[] = [];
  for (const part of path.split(".")) {
    if (!SEGMENT.test(part)) return null;
    const flatten = part.endsWith("[]");
    out.push({ key: flatten ? part.slice(0, -2) : part, flatten });
  }
  return out;
}

/**
 * `found: false`: the path reaches nothing (a missing key, null, a non-container on the way).
 * `found: true`: `values` are the scalars read; `list` when a `[]` (or an array at the end) made it a list, which may be empty.
 * Objects and arrays left at the end of a scalar read are not comparable: not found.
 */
export type PathRead = { found: false } | { found: true; list: boolean; values: (string | number | boolean)[] };

type Scalar = string | number | boolean;
const isScalar = (v: unknown): v is Scalar => typeof v === "string" || typeof v === "number" || typeof v === "boolean";

function step(node: unknown, key: string): unknown {
  if (Array.isArray(node)) return /^\d+$/.test(key) ? node[Number(key)] : undefined;
  // Own properties only: `__proto__` or `constructor` read nothing.
  if (node !== null && typeof node === "object" && Object.hasOwn(node, key)) return (node as Record<string, unknown>)[key];
  return undefined;
}

export function readPath(root: unknown, segments: readonly PathSegment[]): PathRead {
  let nodes: unknown[] = [root];
  let list = false;
  for (const seg of segments) {
    if (!list) {
      // Before the list begins there is exactly one node: a missing step means the path reaches nothing at all.
      const v = step(nodes[0], seg.key);
      if (v === undefined || v === null) return { found: false };
      if (seg.flatten) {
        if (!Array.isArray(v)) return { found: false };
        nodes = v.filter((x) => x !== undefined && x !== null);
        list = true;
      } else nodes = [v];
      continue;
    }
    // Inside the list, an element without the step contributes nothing (`hits[].doc.types[]` of a hit without types).
    const next: unknown[] = [];
    for (const n of nodes) {
      const v = step(n, seg.key);
      if (v === undefined || v === null) continue;
      if (seg.flatten) {
        if (Array.isArray(v)) next.push(...v.filter((x) => x !== undefined && x !== null));
      } else next.push(v);
    }
    nodes = next;
  }
  if (!list) {
    const [v] = nodes;
    if (isScalar(v)) return { found: true, list: false, values: [v] };
    // Part 3: an array at the end reads as its elements, as if it ended with `[]`.
    if (Array.isArray(v)) return { found: true, list: true, values: v.filter(isScalar) };
    return { found: false };
  }
  const values: Scalar[] = [];
  for (const n of nodes) {
    if (isScalar(n)) values.push(n);
    else if (Array.isArray(n)) values.push(...n.filter(isScalar));
  }
  return { found: true, list: true, values };
}
