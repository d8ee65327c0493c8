/**
 * Test environment, loaded by Jest before every test file (jest.config.js `setupFiles`) and by
 * `prepare.ts`: a separate database so tests never touch the development one.
 */
export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/catalog_enrichment_test';
process.env.DATABASE_URL = TEST_DATABASE_URL;
process.env.LOG_LEVEL = process.env.LOG_LEVEL ?? 'silent';
