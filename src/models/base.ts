import { Model } from 'objection';

/**
 * Base of every model: snake_case properties equal to the columns and to the API's JSON names,
 * so there is no case-mapping layer (docs/workflows.md "Temporal: workflows, ids, search attributes"). `jsonb` columns are listed by each
 * model in `jsonAttributes` so Objection serialises them on write.
 *
 * Data access (docs/architecture.md "3. Which data-access style when"): one model per table; row-level reads and writes
 * (find by id, insert a row, patch or delete rows by key, row locks) go through
 * `Model.query(trx)`. knex/raw SQL is kept for set-based work: COPY, MERGE, `INSERT … SELECT`,
 * multi-row upserts, bulk `UPDATE … FROM`, search and count SQL, and statements on tables that
 * only such work touches.
 */
export class BaseModel extends Model {}
