import path from 'node:path';
import { Worker } from 'node:worker_threads';

/** Text of a PDF, one string per page (lines separated by `\n`), and its page count. */
export interface PdfText {
  pages: string[];
  total_pages: number;
}

/** Limits of {@link pdfText}. */
export interface PdfTextOptions {
  /** Wall-clock limit in ms; the worker is terminated past it. Default 20 000. */
  timeoutMs?: number;
  /** Pages read at most. Default 50. */
  maxPages?: number;
  /** V8 old-generation heap of the worker in MiB. Default 256. */
  maxHeapMb?: number;
}

const WORKER = path.join(__dirname, 'pdf-text-worker.mjs');

/**
 * Extracts the text of a PDF (ISO 32000) with unpdf, the serverless build of Mozilla's PDF.js,
 * in a worker thread bounded in time and heap. Text order is PDF.js's content-stream order;
 * scanned PDFs without a text layer give empty pages (no OCR).
 * @param bytes the PDF file
 * @throws Error when the bytes are not a readable PDF, or on timeout/heap exhaustion
 */
export function pdfText(bytes: Buffer, options: PdfTextOptions = {}): Promise<PdfText> {
  const timeoutMs = options.timeoutMs ?? 20_000;
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER, {
      workerData: { bytes: new Uint8Array(bytes), maxPages: options.maxPages ?? 50 },
      resourceLimits: { maxOldGenerationSizeMb: options.maxHeapMb ?? 256 },
    });
    let settled = false;
    const finish = (fn: () => void): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      void worker.terminate();
      fn();
    };
    const timer = setTimeout(() => finish(() => reject(new Error(`PDF text extraction timed out after ${timeoutMs} ms`))), timeoutMs);
    worker.once('message', (msg: PdfText | { error: string }) =>
      finish(() => ('error' in msg ? reject(new Error(`unreadable PDF: ${msg.error}`)) : resolve(msg))),
    );
    worker.once('error', (err) => finish(() => reject(new Error(`PDF text extraction failed: ${err.message}`))));
    worker.once('exit', (code) => finish(() => reject(new Error(`PDF text extraction stopped (exit ${code})`))));
  });
}
