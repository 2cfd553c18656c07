/** The organization row as returned in `data` by v2 search and fetch (and, with extra columns, by v1). */
import * as z from 'zod';
import { ORGANIZATION_COLUMN_NAMES, ORGANIZATION_COLUMNS, shapeOf, type SelectableColumn } from '../common.js';
import { field } from '../validation.js';

/** A column's title and description (common.ts's table), shown by documents. */
const documented = (column: SelectableColumn) => field(ORGANIZATION_COLUMNS[column].title, ORGANIZATION_COLUMNS[column].description);
const text = (column: SelectableColumn) => z.string().nullable().optional().meta(documented(column));

/**
 * Typed known columns; unknown keys pass through so that a newer server's extra columns do not break
 * an older client. Only `domain` is always present.
 */
export const OrganizationRowSchema = z.looseObject(
  shapeOf(ORGANIZATION_COLUMN_NAMES, {
    domain: (column) => z.string().meta(documented(column)),
    text,
    category: text,
    date: text,
    timestamp: text,
    keywords: (column) => z.array(z.string()).nullable().optional().meta(documented(column)),
    number: (column) => z.number().nullable().optional().meta(documented(column)),
    boolean: (column) => z.boolean().nullable().optional().meta(documented(column)),
  }),
);

export type OrganizationRow = z.infer<typeof OrganizationRowSchema>;
