/** Minimal ordered XML tree on top of fast-xml-parser (namespace prefixes removed, order preserved). */
import { XMLParser } from 'fast-xml-parser';

export interface XmlNode {
  name: string;
  attrs: Record<string, string>;
  children: XmlNode[];
  text: string;
}

const parser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: '',
  removeNSPrefix: false,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
  processEntities: true,
  htmlEntities: false,
  commentPropName: '#comment',
});

function localName(n: string): string {
  const i = n.indexOf(':');
  return i >= 0 ? n.slice(i + 1) : n;
}

type Raw = Record<string, unknown>;

function convert(raw: Raw): XmlNode | string | null {
  const keys = Object.keys(raw).filter((k) => k !== ':@');
  if (keys.length === 0) return null;
  const k = keys[0];
  if (k === '#text') return String(raw[k]);
  if (k === '#comment' || k.startsWith('?')) return null;
  const attrsRaw = (raw[':@'] ?? {}) as Record<string, unknown>;
  const attrs: Record<string, string> = {};
  for (const [a, v] of Object.entries(attrsRaw)) attrs[a] = String(v);
  // keep both prefixed and local attribute names (xsi:type -> type is ambiguous, keep full too)
  for (const [a, v] of Object.entries(attrs))
    if (a.includes(':') && !a.startsWith('xmlns')) attrs[localName(a)] ??= v;
  const node: XmlNode = { name: localName(k), attrs, children: [], text: '' };
  const kids = (raw[k] ?? []) as Raw[];
  for (const c of kids) {
    const x = convert(c);
    if (x === null) continue;
    if (typeof x === 'string') node.text += x;
    else node.children.push(x);
  }
  return node;
}

/**
 * The document declares a document type (a DTD): refused before parsing, because its entity declarations
 * are how billion-laughs (entities expanding to gigabytes) and XXE (entities reading files or URLs) attacks
 * work, and DMN has no use for one.
 */
export class XmlDocumentTypeRefused extends Error {
  readonly code = 'XML_DOCTYPE_NOT_ALLOWED';
  constructor() {
    super(
      'The XML declares a document type (<!DOCTYPE …>): DTDs and entity declarations are not accepted in DMN files',
    );
    this.name = 'XmlDocumentTypeRefused';
  }
}

/** Throws XmlDocumentTypeRefused when `xml` holds a `<!DOCTYPE` outside comments and CDATA sections. */
export function refuseDocumentType(xml: string): void {
  let at = xml.indexOf('<!');
  while (at >= 0) {
    if (xml.startsWith('<!--', at)) {
      const end = xml.indexOf('-->', at + 4);
      if (end < 0) return;
      at = xml.indexOf('<!', end + 3);
    } else if (xml.startsWith('<![CDATA[', at)) {
      const end = xml.indexOf(']]>', at + 9);
      if (end < 0) return;
      at = xml.indexOf('<!', end + 3);
    } else if (xml.slice(at + 2, at + 9).toUpperCase() === 'DOCTYPE') {
      throw new XmlDocumentTypeRefused();
    } else at = xml.indexOf('<!', at + 2);
  }
}

export function parseXml(xml: string): XmlNode {
  refuseDocumentType(xml);
  const raw = parser.parse(xml) as Raw[];
  for (const r of raw) {
    const x = convert(r);
    if (x && typeof x !== 'string') return x;
  }
  throw new Error('XML document has no root element');
}

export function child(n: XmlNode | undefined, name: string): XmlNode | undefined {
  return n?.children.find((c) => c.name === name);
}
export function children(n: XmlNode | undefined, name: string): XmlNode[] {
  return n ? n.children.filter((c) => c.name === name) : [];
}
export function textOf(n: XmlNode | undefined): string {
  return n ? n.text : '';
}
