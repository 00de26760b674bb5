// A strict little XML reader for tests: elements, text and the declaration; no attributes on elements (goAML's
// report uses none), no DTD. Throws on anything not well-formed (unclosed or mismatched tags, stray `<` or `&`).

export interface XmlElement {
  name: string;
  children: XmlElement[];
  text: string;
}

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };

function unescape(s: string): string {
  return s.replace(/&([a-z]+);|&/g, (m, e: string | undefined) => {
    if (e === undefined || !(e in ENTITIES)) throw new Error(`bad entity near "${m}"`);
    return ENTITIES[e];
  });
}

export function parseXml(src: string): XmlElement {
  let s = src;
  const decl = /^<\?xml version="1\.0" encoding="UTF-8"\?>\n/.exec(s);
  if (!decl) throw new Error("missing XML declaration");
  s = s.slice(decl[0].length);
  const root: XmlElement = { name: "#document", children: [], text: "" };
  const stack: XmlElement[] = [root];
  let i = 0;
  while (i < s.length) {
    const lt = s.indexOf("<", i);
    const text = s.slice(i, lt < 0 ? s.length : lt);
    if (text.includes(">")) throw new Error(`stray ">" in text "${text.slice(0, 40)}"`);
    stack[stack.length - 1].text += unescape(text);
    if (lt < 0) break;
    const gt = s.indexOf(">", lt);
    if (gt < 0) throw new Error("unterminated tag");
    const tag = s.slice(lt + 1, gt);
    if (tag.startsWith("/")) {
      const open = stack.pop()!;
      if (open.name !== tag.slice(1)) throw new Error(`</${tag.slice(1)}> closes <${open.name}>`);
    } else {
      if (!/^[A-Za-z_][\w.-]*$/.test(tag)) throw new Error(`bad tag <${tag}>`);
      const el: XmlElement = { name: tag, children: [], text: "" };
      stack[stack.length - 1].children.push(el);
      stack.push(el);
    }
    i = gt + 1;
  }
  if (stack.length !== 1) throw new Error(`<${stack[stack.length - 1].name}> is not closed`);
  if (root.children.length !== 1 || root.text.trim()) throw new Error("one root element expected");
  return root.children[0];
}

/** The child elements' names, in order. */
export const childNames = (e: XmlElement) => e.children.map((c) => c.name);
/** The first child of that name. */
export const child = (e: XmlElement, name: string) => e.children.find((c) => c.name === name);
