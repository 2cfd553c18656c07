/// <reference types="google-apps-script" />
/** The OrgIndex menu and the sidebar page (HtmlService serves dist/appsscript/Sidebar.html, everything inlined). */
import { pinSelection, refresh } from './sheet-actions.js';

export function onOpen(): void {
  SpreadsheetApp.getUi()
    .createMenu('OrgIndex')
    .addItem('Open sidebar', 'orgindexShowSidebar')
    .addItem('Refresh now', 'orgindexRefreshNow')
    .addItem('Pin selection as values', 'orgindexPinSelection')
    .addToUi();
}

export function orgindexShowSidebar(): void {
  SpreadsheetApp.getUi().showSidebar(HtmlService.createHtmlOutputFromFile('Sidebar').setTitle('OrgIndex'));
}

export function orgindexRefreshNow(): void {
  const count = refresh();
  SpreadsheetApp.getActiveSpreadsheet().toast(`${count} OrgIndex formula${count === 1 ? '' : 's'} asked again`, 'OrgIndex');
}

export function orgindexPinSelection(): void {
  const count = pinSelection();
  SpreadsheetApp.getActiveSpreadsheet().toast(`${count} cell${count === 1 ? '' : 's'} pinned as values`, 'OrgIndex');
}
