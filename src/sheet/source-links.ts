/**
 * The pages an ORG.ASK answer came from, as links: each source's label (the page title the language
 * interface gives) with its address, where the service says it. Excel shows them as a card of links
 * (addin/entity.ts); hosts without data types get the labels, and with "links=1" the addresses too.
 */
import type { QnaResult } from '../contract/language.js';

export interface SourceLink {
  readonly label: string;
  /** '' where the service gave no address (a service without OrgIndex's extension). */
  readonly url: string;
}

export interface SourceLinks {
  readonly kind: 'sources';
  readonly links: readonly SourceLink[];
}

export function isSourceLinks(value: unknown): value is SourceLinks {
  return typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'sources';
}

/** An answer's sources with their addresses, in the service's order. */
export function sourceLinksOf(data: NonNullable<QnaResult['data']>): SourceLinks {
  const urls = data.source_urls ?? [];
  return { kind: 'sources', links: data.sources.map((label, i) => ({ label, url: urls[i] ?? '' })) };
}
