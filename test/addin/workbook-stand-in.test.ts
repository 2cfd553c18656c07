/**
 * The STAND-IN for Excel (workbook-stand-in.ts) holds the add-in's `Excel.run` code to Office.js's
 * rules, so a test of that code fails where Excel would: these tests pin the rules themselves — loads,
 * queued writes, null objects, failures at sync and proxies that expire with their run.
 */
import { StandInWorkbook } from './workbook-stand-in.js';

let workbook: StandInWorkbook;
beforeEach(() => {
  workbook = new StandInWorkbook(['Sheet1', 'My sheet']);
  workbook.install();
  workbook.sheet('Sheet1').cell(0, 0).value = 'a';
  workbook.sheet('Sheet1').cell(1, 1).value = 2;
});

/** The code of what `read` throws (Office.js errors carry one). */
function codeOf(read: () => unknown): string {
  try {
    read();
  } catch (error) {
    return (error as { code?: string }).code ?? String(error);
  }
  return 'nothing thrown';
}

test('a property is read only after load and a sync; load takes a list, an array or { select }, and nothing means every property', async () => {
  await Excel.run(async (context) => {
    const sheet = context.workbook.worksheets.getItem('Sheet1');
    const range = sheet.getRange('A1:B2');
    expect(codeOf(() => range.values)).toBe('PropertyNotLoaded');
    expect(codeOf(() => range.isNullObject)).toBe('PropertyNotLoaded');
    range.load('values, address');
    expect(codeOf(() => range.address)).toBe('PropertyNotLoaded');
    await context.sync();
    expect(range.toJSON()).toEqual({ values: [['a', ''], ['', 2]], address: 'Sheet1!A1:B2' });
    expect([range.isNullObject, codeOf(() => range.rowCount)]).toEqual([false, 'PropertyNotLoaded']);
    const cell = range.getCell(1, 1).load(['numberFormat']);
    sheet.load({ select: 'name, visibility' });
    const used = sheet.getUsedRange(true).load();
    await context.sync();
    expect([cell.numberFormat, sheet.name, sheet.visibility, used.address, used.rowCount]).toEqual([[['General']], 'Sheet1', 'Visible', 'Sheet1!A1:B2', 2]);
    expect(() => range.load('font/name')).toThrow("has no property 'font' modelled");
  });
});

test('writes wait for a sync, loaded values are those of their sync, and a property set reads back as set', async () => {
  const sheet = workbook.sheet('Sheet1');
  await Excel.run(async (context) => {
    const range = context.workbook.worksheets.getItem('Sheet1').getRange('A1');
    range.load('values');
    await context.sync();
    range.numberFormat = [['@']];
    range.values = [['007']];
    expect(range.numberFormat).toEqual([['@']]);
    await Promise.resolve();
    expect(sheet.cell(0, 0)).toEqual({ value: 'a', format: 'General' });
    await context.sync();
    expect(sheet.cell(0, 0)).toEqual({ value: '007', format: '@' });
    sheet.cell(0, 0).value = 'changed by the user';
    const again = context.workbook.worksheets.getItem('Sheet1').getRange('A1').load('values');
    await context.sync();
    expect([range.values, again.values]).toEqual([[['007']], [['changed by the user']]]);
  });
  // Excel.run syncs once its callback resolves; a callback that throws loses what it had not synced.
  await Excel.run(async (context) => {
    context.workbook.worksheets.getItem('Sheet1').getRange('C1').values = [['synced by run']];
    return Promise.resolve();
  });
  await expect(
    Excel.run(async (context) => {
      context.workbook.worksheets.getItem('Sheet1').getRange('D1').values = [['lost']];
      return Promise.reject(new Error('stop'));
    }),
  ).rejects.toThrow('stop');
  expect(sheet.valuesAt('C1:D1')).toEqual([['synced by run', '']]);
});

test('null objects: known after a sync, undefined properties, null all the way down, methods that do nothing', async () => {
  await Excel.run(async (context) => {
    const missing = context.workbook.worksheets.getItemOrNullObject('Nowhere');
    const found = context.workbook.worksheets.getItemOrNullObject('my SHEET');
    const used = missing.getUsedRangeOrNullObject().load('values');
    const name = context.workbook.names.getItemOrNullObject('NoSuchName');
    const range = name.getRangeOrNullObject();
    name.delete();
    await context.sync();
    expect([missing.isNullObject, found.isNullObject, used.isNullObject, used.values, name.isNullObject, range.isNullObject]).toEqual([true, false, true, undefined, true, true]);
  });
});

test('a failing command fails its sync: the commands before it took effect, those after it were dropped', async () => {
  await expect(
    Excel.run(async (context) => {
      const sheet = context.workbook.worksheets.getItem('Sheet1');
      sheet.getRange('E1').values = [['before']];
      context.workbook.worksheets.getItem('Nowhere').getRange('A1').values = [['x']];
      sheet.getRange('F1').values = [['after']];
      await context.sync();
    }),
  ).rejects.toMatchObject({ name: 'RichApi.Error', code: 'ItemNotFound' });
  expect(workbook.sheet('Sheet1').valuesAt('E1:F1')).toEqual([['before', '']]);
  await expect(
    Excel.run(async (context) => {
      context.workbook.worksheets.getItem('Sheet1').getRange('A1:B2').values = [['ragged'], [1, 2]];
      await context.sync();
    }),
  ).rejects.toMatchObject({ code: 'InvalidArgument' });
  await expect(
    Excel.run(async (context) => {
      const a1 = context.workbook.worksheets.getItem('Sheet1').getRange('A1');
      a1.getIntersection(context.workbook.worksheets.getItem('Sheet1').getRange('C3'));
      await context.sync();
    }),
  ).rejects.toMatchObject({ code: 'ItemNotFound' });
});

test('a collection lists its items only after a load', async () => {
  await Excel.run(async (context) => {
    const sheets = context.workbook.worksheets;
    expect(codeOf(() => sheets.items)).toBe('PropertyNotLoaded');
    sheets.load('items/name');
    context.workbook.names.add('Total', sheets.getItem('Sheet1').getRange('B2'));
    const names = context.workbook.names.load('name, value');
    await context.sync();
    expect(sheets.items.map((sheet) => sheet.name)).toEqual(['Sheet1', 'My sheet']);
    expect(codeOf(() => sheets.items[0]?.visibility)).toBe('PropertyNotLoaded');
    expect(names.toJSON()).toEqual({ items: [{ name: 'Total', value: '=Sheet1!B2' }] });
  });
});

test('a proxy outlives its run only for what it loaded; another run cannot use it', async () => {
  const range = await Excel.run<Excel.Range>(async (context) => {
    const range = context.workbook.worksheets.getItem('My sheet').getRange('B2:C3');
    range.load('address');
    await context.sync();
    return range;
  });
  expect(range.address).toBe("'My sheet'!B2:C3");
  expect(codeOf(() => range.load('values'))).toBe('InvalidObjectPath');
  expect(codeOf(() => (range.values = [[1, 2], [3, 4]]))).toBe('InvalidObjectPath');
  expect(codeOf(() => range.getCell(0, 0))).toBe('InvalidObjectPath');
  await expect(
    Excel.run(async (context) => {
      context.workbook.names.add('Old', range);
      await context.sync();
    }),
  ).rejects.toMatchObject({ code: 'InvalidRequestContext' });
  await expect(Excel.run((() => undefined) as unknown as (context: Excel.RequestContext) => Promise<void>)).rejects.toMatchObject({ code: 'RunMustReturnPromise' });
});

describe('typed cell values (valuesAsJson) and requirement sets', () => {
  /** Shaped like the entity card article's product example: a title, a main image, sections, a sublabel, a provider. */
  const product = {
    type: 'Entity',
    text: 'Gumbo Mix',
    properties: {
      'Product ID': { type: 'String', basicValue: '5' },
      'Product Name': { type: 'String', basicValue: 'Gumbo Mix' },
      Image: { type: 'WebImage', address: 'https://example.com/gumbo.png' },
      'Unit Price': { type: 'FormattedNumber', basicValue: 21.35, numberFormat: '$* #,##0.00', propertyMetadata: { sublabel: 'USD' } },
      Discontinued: { type: 'Boolean', basicValue: true, propertyMetadata: { excludeFrom: { cardView: true } } },
    },
    layouts: {
      compact: { icon: 'ShoppingBag' },
      card: {
        title: { property: 'Product Name' },
        mainImage: { property: 'Image' },
        sections: [
          { layout: 'List', properties: ['Product ID'] },
          { layout: 'List', title: 'Quantity and price', collapsible: true, collapsed: false, properties: ['Unit Price'] },
          { layout: 'Table', title: 'More', collapsible: true, collapsed: true, properties: ['Discontinued'] },
        ],
      },
    },
    provider: { description: 'Contoso', logoSourceAddress: 'https://example.com/logo.png', logoTargetAddress: 'https://example.com' },
  };

  const write = (json: unknown, address = 'C3') =>
    Excel.run(async (context) => {
      context.workbook.worksheets.getItem('Sheet1').getRange(address).valuesAsJson = [[json]] as Excel.CellValue[][];
      await context.sync();
    });

  test('an entity shaped as documented is kept; values and formulas read it as #VALUE!, valuesAsJson as written with Excel’s basic value', async () => {
    await write(product);
    await Excel.run(async (context) => {
      const range = context.workbook.worksheets.getItem('Sheet1').getRange('B2:C3');
      expect(codeOf(() => range.valuesAsJson)).toBe('PropertyNotLoaded');
      range.load('values, formulas, valuesAsJson');
      await context.sync();
      expect(range.values).toEqual([[2, ''], ['', '#VALUE!']]);
      expect(range.formulas[1]?.[1]).toBe('#VALUE!');
      expect(range.valuesAsJson).toEqual([
        [{ type: 'Double', basicValue: 2 }, { type: 'Empty', basicValue: '' }],
        [{ type: 'Empty', basicValue: '' }, { ...product, basicValue: '#VALUE!', basicType: 'Error' }],
      ]);
    });
    // Writing plain values over it leaves no card behind.
    await Excel.run(async (context) => {
      context.workbook.worksheets.getItem('Sheet1').getRange('C3').values = [['plain']];
      await context.sync();
    });
    expect(workbook.sheet('Sheet1').peek(2, 2)).toEqual({ value: 'plain', format: 'General' });
  });

  test.each([
    ['an unknown type', { ...product, type: 'Organization' }, 'unknown cell value type'],
    ['a section naming a property that does not exist', { ...product, layouts: { card: { sections: [{ layout: 'List', properties: ['Price'] }] } } }, 'no property "Price"'],
    ['a title naming a property that does not exist', { ...product, layouts: { card: { title: { property: 'Name' } } } }, 'no property "Name"'],
    ['a main image that is no WebImage', { ...product, layouts: { card: { mainImage: { property: 'Product ID' } } } }, 'must be a WebImage value'],
    ['a TwoColumn section below ExcelApi 1.19', { ...product, layouts: { card: { sections: [{ layout: 'TwoColumn', properties: ['Product ID'] }] } } }, 'must be "List" or "Table"'],
    ['a String without a string basic value', { ...product, properties: { 'Product ID': { type: 'String', basicValue: 5 } } }, 'basicValue: must be a string'],
    ['a misspelt key', { ...product, properties: { 'Product ID': { type: 'String', basicValue: '5', propertyMetaData: {} } } }, 'unknown key "propertyMetaData"'],
    ['property metadata outside an entity’s properties', { type: 'String', basicValue: 'x', propertyMetadata: { sublabel: 'y' } }, 'unknown key "propertyMetadata"'],
    ['referencedValues on a nested entity', { type: 'Entity', text: 'a', properties: { inner: { type: 'Entity', text: 'b', referencedValues: [] } } }, 'only the outermost entity'],
    ['an image over http', { type: 'WebImage', address: 'http://example.com/a.png' }, 'must be an https address'],
    ['attribution that is not a list', { type: 'Entity', properties: { d: { type: 'String', basicValue: 'x', propertyMetadata: { attribution: { sourceAddress: 'https://x' } } } } }, 'attribution: must be an array'],
  ])('%s is refused at sync with InvalidArgument, and the cell keeps its value', async (_name, json, reason) => {
    workbook.sheet('Sheet1').cell(2, 2).value = 'before';
    await expect(write(json)).rejects.toMatchObject({ code: 'InvalidArgument', message: expect.stringContaining(reason) as unknown });
    expect(workbook.sheet('Sheet1').peek(2, 2).value).toBe('before');
  });

  test('below ExcelApi 1.16 Office says so, and valuesAsJson fails with ApiNotFound; at 1.19 TwoColumn sections pass', async () => {
    expect(Office.context.requirements.isSetSupported('ExcelApi', '1.16')).toBe(true);
    expect(Office.context.requirements.isSetSupported('ExcelApi', '1.19')).toBe(false);
    workbook.excelApi = '1.15';
    expect(Office.context.requirements.isSetSupported('ExcelApi', '1.16')).toBe(false);
    expect(Office.context.requirements.isSetSupported('ExcelApi', '1.9')).toBe(true);
    await expect(write(product)).rejects.toMatchObject({ code: 'ApiNotFound' });
    await expect(
      Excel.run(async (context) => {
        context.workbook.worksheets.getItem('Sheet1').getRange('A1').load('valuesAsJson');
        await context.sync();
      }),
    ).rejects.toMatchObject({ code: 'ApiNotFound' });
    workbook.excelApi = '1.19';
    await write({ ...product, layouts: { card: { sections: [{ layout: 'TwoColumn', properties: ['Product ID'] }] } } });
    expect(workbook.sheet('Sheet1').peek(2, 2).json?.type).toBe('Entity');
  });
});
