import path from 'node:path';
import { REPO_ROOT } from '../../src/config';

/** `../shared/data` beside the clone, or `SHARED_DATA_DIR` when set (as the service reads it; real, third-party test data; see its README). */
export const SHARED_DATA = path.resolve(REPO_ROOT, process.env.SHARED_DATA_DIR || path.join('..', 'shared', 'data'));
