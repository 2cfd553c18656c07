/**
 * Where the functions get their answers, as the task pane (or the Sheets sidebar) edits it and the host
 * stores it (Excel: OfficeRuntime.storage, never the workbook; Sheets: user properties). The service URL
 * is the v2 root (`{base_url}`, when it ends in /v2) or the root of an OrgIndex server (v2 under `/v2`,
 * the legacy and language routes under `/v1`, as our server lays them out). A hosted service whose
 * language interface lives elsewhere (`{llm_base_url}`) gets its own URL for ORG.ASK.
 */
import type { ClientOptions } from '../client/config.js';

export interface Connection {
  backend: 'local' | 'remote';
  /** The service root, e.g. https://api.example.com or http://localhost:8787 (a trailing /v2 is accepted). */
  serviceUrl: string;
  apiKey: string;
  /** A sign-in (bearer) token: the language interface behind ORG.ASK accepts only these. */
  accessToken: string;
  /** The language interface's root when it is not the service's (blank: the service root). */
  languageUrl: string;
  /** How long answers are reused before asking the service again. */
  cacheHours: number;
}

export const DEFAULT_CONNECTION: Connection = { backend: 'local', serviceUrl: '', apiKey: '', accessToken: '', languageUrl: '', cacheHours: 24 };

/** A stored connection, tolerant of older or hand-edited values: anything unreadable falls back to the default. */
export function readConnection(text: string | null | undefined): Connection {
  if (!text) return { ...DEFAULT_CONNECTION };
  try {
    const raw = JSON.parse(text) as Partial<Record<keyof Connection, unknown>>;
    const str = (value: unknown): string => (typeof value === 'string' ? value : '');
    const hours = typeof raw.cacheHours === 'number' && raw.cacheHours >= 0 && raw.cacheHours <= 24 * 30 ? raw.cacheHours : DEFAULT_CONNECTION.cacheHours;
    return {
      backend: raw.backend === 'remote' ? 'remote' : 'local',
      serviceUrl: str(raw.serviceUrl),
      apiKey: str(raw.apiKey),
      accessToken: str(raw.accessToken),
      languageUrl: str(raw.languageUrl),
      cacheHours: hours,
    };
  } catch {
    return { ...DEFAULT_CONNECTION };
  }
}

/** The client options for a remote connection. */
export function clientOptionsOf(connection: Connection): ClientOptions {
  const root = connection.serviceUrl.trim().replace(/\/+$/, '').replace(/\/v2$/i, '');
  const language = connection.languageUrl.trim().replace(/\/+$/, '');
  return {
    baseUrls: { v2: `${root}/v2`, v1: root, language: language || root },
    apiKey: connection.apiKey || null,
    accessToken: connection.accessToken || null,
  };
}
