/**
 * Repairs the malformations real pages put into JSON-LD blocks, then parses: an HTML comment
 * or CDATA wrapper around the block, JavaScript comments (`//`, `/* *\/`) outside strings, raw
 * control characters (newlines, tabs) inside strings, and trailing commas before `}` / `]`.
 * Behaviour checked against extruct's `custom.invalid` fixtures (evaluation data,
 * pages/extruct-samples).
 * @returns the parsed value, or undefined when the text is still not JSON after repair
 */
export function parseTolerantJson(text: string): unknown {
  const trimmed = text
    .trim()
    .replace(/^<!--/, '')
    .replace(/-->$/, '')
    .replace(/^\/\/\s*<!\[CDATA\[/, '')
    .replace(/\/\/\s*\]\]>$/, '')
    .trim();
  if (!trimmed) return undefined;
  try {
    return JSON.parse(trimmed);
  } catch {
    try {
      return JSON.parse(repair(trimmed));
    } catch {
      return undefined;
    }
  }
}

/** One pass over the text that tracks whether it is inside a string literal. */
function repair(text: string): string {
  let out = '';
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (ch === '\\') {
        out += ch + (text[i + 1] ?? '');
        i++;
      } else if (ch === '"') {
        inString = false;
        out += ch;
      } else if (ch === '\n') out += '\\n';
      else if (ch === '\r') out += '\\r';
      else if (ch === '\t') out += '\\t';
      else if (ch < ' ') out += `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`;
      else out += ch;
      continue;
    }
    if (ch === '"') {
      inString = true;
      out += ch;
    } else if (ch === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++;
      out += '\n';
    } else if (ch === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? text.length : end + 1;
    } else out += ch;
  }
  return out.replace(/,(\s*[}\]])/g, '$1');
}
