/// <reference types="google-apps-script" />
/** The OrgIndex menu and the sidebar page (HtmlService serves dist/appsscript/Sidebar.html, everything inlined). */
import { refreshSavedQueries } from './saved-queries.js';
import { pinSelection, refresh } from './sheet-actions.js';

export function onOpen(): void {
  SpreadsheetApp.getUi()
    .createMenu('OrgIndex')
    .addItem('Open sidebar', 'orgindexShowSidebar')
    .addItem('Refresh now', 'orgindexRefreshNow')
    .addItem('Schedule refresh…', 'orgindexShowSchedule')
    .addItem('Pin selection as values', 'orgindexPinSelection')
    .addToUi();
}

/** The sidebar, opened on one of its tabs (the page reads `data-tab` of its root element). */
function showSidebar(tab: 'search' | 'refresh'): void {
  const page = HtmlService.createHtmlOutputFromFile('Sidebar').setTitle('OrgIndex');
  if (tab !== 'search') page.setContent(page.getContent().replace('data-tab="search"', `data-tab="${tab}"`));
  SpreadsheetApp.getUi().showSidebar(page);
}

export function orgindexShowSidebar(): void {
  showSidebar('search');
}

export function orgindexShowSchedule(): void {
  showSidebar('refresh');
}

const plural = (count: number, word: string, words = `${word}s`): string => `${count.toLocaleString('en-US')} ${count === 1 ? word : words}`;

/** Formulas asked again and saved queries refreshed, in one go. */
export function orgindexRefreshNow(): void {
  const formulas = refresh();
  const report = refreshSavedQueries('menu');
  const saved = report.skipped ?? `${plural(report.refreshed, 'saved query', 'saved queries')} refreshed${report.failed.length > 0 ? `, ${plural(report.failed.length, 'failure')} (see the sheet "OrgIndex log")` : ''}`;
  SpreadsheetApp.getActiveSpreadsheet().toast(`${plural(formulas, 'OrgIndex formula')} asked again; ${saved}`, 'OrgIndex');
}

export function orgindexPinSelection(): void {
  const count = pinSelection();
  SpreadsheetApp.getActiveSpreadsheet().toast(`${plural(count, 'cell')} pinned as values`, 'OrgIndex');
}
