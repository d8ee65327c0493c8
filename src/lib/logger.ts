import pino from 'pino';

/** Process-wide structured logger (pino, JSON lines on stdout). Level from `LOG_LEVEL`. */
export const logger = pino({ level: process.env.LOG_LEVEL ?? 'info', base: { service: 'catalog-enrichment' } });
