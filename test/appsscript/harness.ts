/**
 * A sandbox that plays Google Apps Script for the built bundle (dist/appsscript/Code.js): a fresh
 * `node:vm` context — so it really lacks fetch, setTimeout, URL, TextEncoder — holding STAND-INS for the
 * Apps Script services the bundle uses (Google's servers cannot be reached here): PropertiesService,
 * CacheService (CacheService's key / value / TTL limits enforced), Utilities, LockService, ScriptApp
 * (time-driven triggers, recorded), MailApp (mail recorded, not sent), and a UrlFetchApp whose fetch and
 * fetchAll make real, synchronous HTTP calls (through a child process) to the real server.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import vm from 'node:vm';
import { StandInCache } from '../support/cache-service-stand-in.js';

const HTTP_HELPER = join(__dirname, 'sync-http.cjs');

class Properties {
  readonly values = new Map<string, string>();
  getProperties(): Record<string, string> {
    return Object.fromEntries(this.values);
  }
  getProperty(key: string): string | null {
    return this.values.get(key) ?? null;
  }
  setProperty(key: string, value: string): this {
    this.values.set(key, value);
    return this;
  }
  deleteProperty(key: string): this {
    this.values.delete(key);
    return this;
  }
}

/** STAND-IN for a document lock: `held` plays another execution holding it (tryLock then waits in vain). */
export class StandInLock {
  held = false;
  acquired = 0;
  tryLock(): boolean {
    if (this.held) return false;
    this.held = true;
    this.acquired++;
    return true;
  }
  releaseLock(): void {
    this.held = false;
  }
}

/** A time-driven trigger as ScriptApp's builder would create it: its handler and the clock settings it was given. */
export interface StandInTrigger {
  id: string;
  handler: string;
  settings: Record<string, unknown>;
}

/** STAND-IN for ScriptApp's project triggers (this user's) and its clock-trigger builder. */
function scriptAppStandIn(triggers: StandInTrigger[]) {
  let next = 1;
  const handle = (trigger: StandInTrigger) => ({ getUniqueId: () => trigger.id, getHandlerFunction: () => trigger.handler, trigger });
  return {
    WeekDay: Object.fromEntries(['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY', 'SUNDAY'].map((day) => [day, day])),
    getProjectTriggers: () => triggers.map(handle),
    deleteTrigger: (trigger: { trigger: StandInTrigger }) => {
      const index = triggers.indexOf(trigger.trigger);
      if (index < 0) throw new Error('Exception: The trigger does not exist');
      triggers.splice(index, 1);
    },
    newTrigger: (handler: string) => ({
      timeBased: () => {
        const settings: Record<string, unknown> = {};
        const builder = {
          everyHours: (n: number) => ((settings.everyHours = n), builder),
          everyDays: (n: number) => ((settings.everyDays = n), builder),
          onWeekDay: (day: string) => ((settings.onWeekDay = day), builder),
          atHour: (hour: number) => ((settings.atHour = hour), builder),
          inTimezone: (zone: string) => ((settings.inTimezone = zone), builder),
          create: () => {
            if (triggers.length >= 20) throw new Error('Exception: This script has too many triggers.');
            const trigger = { id: `trigger-${String(next++)}`, handler, settings };
            triggers.push(trigger);
            return handle(trigger);
          },
        };
        return builder;
      },
    }),
  };
}

interface FetchParams {
  method?: string;
  headers?: Record<string, string>;
  contentType?: string;
  payload?: string;
  muteHttpExceptions?: boolean;
  followRedirects?: boolean;
}

function httpResponse(raw: { status: number; headers: Record<string, string>; body: string }) {
  return { getResponseCode: () => raw.status, getAllHeaders: () => raw.headers, getContentText: () => raw.body };
}

export interface AppsScriptSandbox {
  context: vm.Context;
  userProperties: Properties;
  documentProperties: Properties;
  /** The script's own properties (set in the Apps Script editor: Project Settings → Script properties). */
  scriptProperties: Properties;
  cache: StandInCache;
  /** Every URL the bundle fetched. */
  fetched: string[];
  lock: StandInLock;
  triggers: StandInTrigger[];
  mails: { to: string; subject: string; body: string }[];
  /** Calls a top-level function of the script, as Sheets does for a formula. */
  call(name: string, ...args: unknown[]): unknown;
}

export function loadBundle(file = join(process.cwd(), 'dist/appsscript/Code.js'), extraGlobals: Record<string, unknown> = {}): AppsScriptSandbox {
  const userProperties = new Properties();
  const documentProperties = new Properties();
  const scriptProperties = new Properties();
  const cache = new StandInCache();
  const fetched: string[] = [];
  const lock = new StandInLock();
  const triggers: StandInTrigger[] = [];
  const mails: { to: string; subject: string; body: string }[] = [];
  let uuid = 0;
  const send = (requests: ({ url: string } & FetchParams)[]) => {
    for (const request of requests) fetched.push(request.url);
    const output = execFileSync(process.execPath, [HTTP_HELPER], { input: JSON.stringify(requests), maxBuffer: 256 * 1024 * 1024 });
    return (JSON.parse(output.toString()) as ({ status: number; headers: Record<string, string>; body: string } | { error: string })[]).map((raw) => {
      // As UrlFetchApp does: an unreachable address throws.
      if ('error' in raw) throw new Error(`Exception: Address unavailable: ${raw.error}`);
      return httpResponse(raw);
    });
  };
  const context = vm.createContext({
    PropertiesService: { getUserProperties: () => userProperties, getDocumentProperties: () => documentProperties, getScriptProperties: () => scriptProperties },
    CacheService: { getDocumentCache: () => cache, getScriptCache: () => cache, getUserCache: () => cache },
    Utilities: {
      sleep: (ms: number) => void Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms),
      getUuid: () => `00000000-0000-4000-8000-${String(++uuid).padStart(12, '0')}`,
    },
    LockService: { getDocumentLock: () => lock, getScriptLock: () => lock },
    ScriptApp: scriptAppStandIn(triggers),
    MailApp: { sendEmail: (to: string, subject: string, body: string) => void mails.push({ to, subject, body }) },
    UrlFetchApp: {
      fetch: (url: string, params: FetchParams = {}) => send([{ url, ...params }])[0],
      fetchAll: (requests: ({ url: string } & FetchParams)[]) => send(requests),
    },
    Logger: { log: () => undefined },
    ...extraGlobals,
    console: { log: () => undefined, warn: () => undefined, error: () => undefined },
  });
  new vm.Script(readFileSync(file, 'utf8'), { filename: 'Code.js' }).runInContext(context);
  return {
    context,
    userProperties,
    documentProperties,
    scriptProperties,
    cache,
    fetched,
    lock,
    triggers,
    mails,
    call: (name: string, ...args: unknown[]) => (context[name] as (...a: unknown[]) => unknown)(...args),
  };
}
