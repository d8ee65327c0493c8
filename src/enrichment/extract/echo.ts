/**
 * Whether two readings of a page are one writing of the value: microdata written on visible
 * elements (WHATWG HTML §5.2) makes a spec cell, a label's code or a price element the very text
 * the microdata property holds, and reading it again is no independent confirmation
 * (docs/evaluation.md, "Calibrated confidence").
 */
import type { PageDoc } from '../parse/page';
import type { Candidate } from './candidate';

/**
 * `{echoes: 'microdata'}` when the page writes `value` as a text-valued microdata property
 * (`PageDoc.microdata_texts`): a spec row or label reading it reads the microdata's own writing,
 * so voting does not count it as a second, independent reading; else nothing.
 */
export function echo(doc: PageDoc, value: string): Pick<Candidate, 'echoes'> {
  return doc.microdata_texts?.includes(value.replace(/\s+/g, ' ').trim()) ? { echoes: 'microdata' } : {};
}
