import { Model } from 'objection';

/**
 * Base of every model: snake_case properties equal to the columns and to the spec's JSON names,
 * so there is no case-mapping layer (architecture.md, Names). `jsonb` columns are listed by each
 * model in `jsonAttributes` so Objection serialises them on write.
 */
export class BaseModel extends Model {
  static get modelPaths(): string[] {
    return [__dirname];
  }
}
