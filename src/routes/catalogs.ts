import type { AppDeps } from '../app';
import type { RouteDef } from './registry';

/** Routes of this resource (being written). */
export function catalogRoutes(_deps: AppDeps): RouteDef[] {
  return [];
}
