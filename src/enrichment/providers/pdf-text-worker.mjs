// Worker thread of pdf-text.ts: extracts the text of one PDF with unpdf (PDF.js) and posts
// {pages: string[]} or {error: string}. It runs in its own thread so a hostile or huge PDF
// is bounded in time (terminated) and memory (resourceLimits), and so PDF.js loads through
// Node's own ESM loader whatever the host process is (tsx, Jest).
import { parentPort, workerData } from 'node:worker_threads';
import { getDocumentProxy } from 'unpdf';

try {
  const pdf = await getDocumentProxy(new Uint8Array(workerData.bytes), { isEvalSupported: false, stopAtErrors: false });
  const total = pdf.numPages;
  const pages = Math.min(total, workerData.maxPages);
  const texts = [];
  for (let i = 1; i <= pages; i++) {
    const page = await pdf.getPage(i);
    const content = await page.getTextContent();
    texts.push(content.items.map((item) => ('str' in item ? item.str + (item.hasEOL ? '\n' : '') : '')).join(''));
  }
  await pdf.destroy();
  parentPort.postMessage({ pages: texts, total_pages: total });
} catch (err) {
  parentPort.postMessage({ error: err instanceof Error ? err.message : String(err) });
}
