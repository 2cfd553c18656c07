/**
 * The Excel custom functions (namespace ORG): =ORG.SEARCH, =ORG.FETCH, =ORG.STATS, =ORG.ASK. This file
 * is the input of custom-functions-metadata-plugin, which writes functions.json from the JSDoc below and
 * appends the CustomFunctions.associate calls — so each function stays a top-level declaration here.
 * The work is done once for every host in src/sheet/functions.ts; this file maps its error cells to
 * Excel errors. Arguments are declared as ranges (`any[][]`, the metadata's "any matrix"): a range or a
 * single value both arrive as rows of cells.
 */
/* eslint-disable @typescript-eslint/no-explicit-any -- functions.json types come from these signatures; "any" is the metadata's type for "text, number or range" */
import { isErrorCell, type Table } from '../../src/sheet/cells.js';
import { asksForCards } from '../../src/sheet/formula-grammar.js';
import { isOrgCard, type CardTable } from '../../src/sheet/org-card.js';
import { isSourceLinks, type SourceLinks } from '../../src/sheet/source-links.js';
import type { CellValue } from '../../src/sheet/cells.js';
import { entitiesSupported, orgEntity, sourcesEntity } from '../entity.js';
import { addinRuntime } from '../page-runtime.js';

/**
 * Error cells become CustomFunctions.Error values (the only kinds that carry a message: #VALUE! and
 * #N/A); organization cards become data types.
 */
export function toExcel(table: Table | CardTable | (CellValue | SourceLinks)[][]): any[][] {
  return table.map((row) =>
    row.map((cell) => {
      if (isErrorCell(cell)) {
        const code = cell.error === '#VALUE!' ? CustomFunctions.ErrorCode.invalidValue : CustomFunctions.ErrorCode.notAvailable;
        return new CustomFunctions.Error(code, cell.message);
      }
      if (isOrgCard(cell)) return orgEntity(cell);
      if (isSourceLinks(cell)) return sourcesEntity(cell);
      return cell ?? '';
    }),
  );
}

/**
 * Searches organizations and spills a table (header row first). Query: keywords (solar "heat pump" +battery -coal: bare words rank, + requires, - excludes), "describe: …" for a description, "like: a.com, b.com" for similar organizations, or a JSON v2 search body.
 * @customfunction ORGSEARCH SEARCH
 * @param query Keywords (solar +battery -coal), "describe: text", "like: acme.com" or a JSON body. May be blank when filters or options say what to find.
 * @param [filters] "country=Germany; organization_size=small, medium-sized; nace_code=62; register_date_from=2020-01-01" or a two-column range (filter | value).
 * @param [columns] Output columns: "domain, name, country" or a range of names. Default domain, name, country.
 * @param [options] "size=50 (up to 10000); min_score=0.4; balance=0.7; dedup=1; headers=0; describe=…; similar_to=a.com; boost=solar; penalize=coal; repel=b.com; weight=strong; excludes=c.com" or a two-column range.
 * @returns A table of organizations.
 */
export async function orgSearch(query: any[][], filters?: any[][], columns?: any[][], options?: any[][]): Promise<any[][]> {
  const runtime = addinRuntime();
  await runtime.ready;
  return toExcel(await runtime.functions.search(query, filters ?? null, columns ?? null, options ?? null));
}

/**
 * Looks up organizations by domain: one row per input cell, in order. URLs and e-mail addresses are accepted; a blank cell gives a blank row; a domain not in the index gives #N/A in its row.
 * @customfunction ORGFETCH FETCH
 * @param domains A domain, URL or e-mail address, or a range of them (whole columns are batched: 5,000 per request).
 * @param [columns] Output columns: "name, country, nace_code" or a range of names. Default domain, name, country.
 * @param [options] "headers=1" puts a header row first (off by default so rows stay beside their inputs); "as=card" gives one organization card per domain, with the columns named or every card field (=A2.name reads a field; where cards cannot show, the columns as values).
 * @returns One row per input cell.
 */
export async function orgFetch(domains: any[][], columns?: any[][], options?: any[][]): Promise<any[][]> {
  const runtime = addinRuntime();
  await runtime.ready;
  if (asksForCards(options ?? null)) {
    if (entitiesSupported()) return toExcel(await runtime.functions.cards(domains, columns ?? null, options ?? null));
    runtime.noteCardsFellBack();
  }
  return toExcel(await runtime.functions.fetch(domains, columns ?? null, options ?? null));
}

/**
 * Counts organizations by one or two dimensions: a value/count table, or with a second dimension a crosstab (first dimension down, second across).
 * @customfunction ORGSTATS STATS
 * @param group_by What to count by: country, state, region, organization_type, organization_size, nace_code, company_register_date, …
 * @param [group_by_secondary] A second dimension for a crosstab.
 * @param [filters] The same filters as ORG.SEARCH: "country=Germany; organization_type=Startup" or a two-column range.
 * @param [options] "limit=20; date_trunc=year; layout=long; headers=0; date_field=created_at; from=2020-01-01; to=2024-12-31".
 * @returns A table of counts.
 */
export async function orgStats(group_by: any[][], group_by_secondary?: any[][], filters?: any[][], options?: any[][]): Promise<any[][]> {
  const runtime = addinRuntime();
  await runtime.ready;
  return toExcel(await runtime.functions.stats(group_by, group_by_secondary ?? null, filters ?? null, options ?? null));
}

/**
 * Answers a question from an organization's website (needs a connection with a sign-in token). No answer gives #N/A with the reason.
 * @customfunction ORGASK ASK
 * @param domain The organization's domain, e.g. example.com.
 * @param question The question, e.g. "Do they offer an API?".
 * @param [max_pages] How many pages of the site to read (default 3: the pages likeliest to answer first).
 * @param [options] "detail=1" spills answer | confidence | sources (links to the pages where the host shows them); "links=1" adds the pages' addresses; "headers=1" adds a header row.
 * @returns The answer.
 */
export async function orgAsk(domain: any[][], question: any[][], max_pages?: any[][], options?: any[][]): Promise<any[][]> {
  const runtime = addinRuntime();
  await runtime.ready;
  if (entitiesSupported()) return toExcel(await runtime.functions.askLinked(domain, question, max_pages ?? null, options ?? null));
  return toExcel(await runtime.functions.ask(domain, question, max_pages ?? null, options ?? null));
}
