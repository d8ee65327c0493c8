import { Type } from '@sinclair/typebox';
import { StringEnum, withDefault } from './common';

/** JSON Schemas of the spreadsheet routes of catalogs (issue 20: export and import). */

/** `GET …/items/export` query. */
export const exportQuery = Type.Object({ format: Type.Optional(withDefault(StringEnum(['csv', 'xlsx'] as const), 'csv')) }, { additionalProperties: false });
