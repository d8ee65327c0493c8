import path from 'node:path';

/** `../shared/data` next to the repository (real third-party fixtures; see its README). */
export const SHARED_DATA = path.resolve(__dirname, '../../../..', 'shared/data');
