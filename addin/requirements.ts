/**
 * Which Excel API this Excel has (Office.js requirement sets). Outside Office — the task pane opened in
 * a browser, a test without the Office global — there is no Excel to ask: the caller says what to assume.
 */
export function hasExcelApi(version: string, outsideOffice: boolean): boolean {
  return typeof Office === 'undefined' ? outsideOffice : Office.context.requirements.isSetSupported('ExcelApi', version);
}
