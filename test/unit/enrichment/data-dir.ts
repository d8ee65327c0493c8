import path from 'node:path';

/** `../shared/data` next to the repository, or `SHARED_DATA_DIR` when set (as the service reads it; real third-party fixtures; see its README). */
export const SHARED_DATA = path.resolve(__dirname, '../../..', process.env.SHARED_DATA_DIR || '../shared/data');
