import type { Knex } from 'knex';

/**
 * Image runs (`service_image_run` / `_status` / `_list`): one image processing job on the
 * organization's hosted media: the tool, its input (hosted image, prompt, options), its status and
 * the hosted URLs it produced.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('image_runs', (t) => {
    t.uuid('id').primary();
    t.uuid('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
    t.string('tool', 32).notNullable();
    t.string('status', 16).notNullable();
    t.jsonb('input').notNullable();
    t.integer('num_options').notNullable().defaultTo(1);
    t.uuid('catalog_id');
    t.string('item_id', 200);
    t.jsonb('result_urls').notNullable().defaultTo('[]');
    t.text('error');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('completed_at', { useTz: true });
    t.index(['organization_id', 'created_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('image_runs');
}
