import path from 'node:path';
import { REPO_ROOT } from '../../src/config';

/** `../shared/data` beside the clone (real, third-party test data; see its README). */
export const SHARED_DATA = path.resolve(REPO_ROOT, '..', 'shared', 'data');
