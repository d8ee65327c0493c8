import pino from 'pino';
import { logLevelOf } from '../config';

/** Process-wide structured logger (pino, JSON lines on stdout). Level from `LOG_LEVEL` (src/config.ts logLevelOf). */
export const logger = pino({ level: logLevelOf(), base: { service: 'catalog-enrichment' } });
