import path from 'node:path';
import { REPO_ROOT } from '../../src/config';

/**
 * The labelled data folder (real, third-party test data; see its README): `SHARED_DATA_DIR`
 * (relative to the repository root) when set, else `../shared/data` beside the clone — the same
 * rule as the service's configuration (docs/configuration.md, `SHARED_DATA_DIR`).
 */
export const SHARED_DATA = path.resolve(REPO_ROOT, process.env.SHARED_DATA_DIR || path.join('..', 'shared', 'data'));
