import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  bindColumns,
  DEFAULT_PROFILE,
  loadProfileFile,
  parseProfile,
  ProfileError,
} from '../../../connectors/erp-orders/profile';

describe('mapping profiles', () => {
  it('fills defaults: iso dates, decimals by the file (no decimalSeparator), incomplete exports, the caller as buyer, ERP_ID codes', () => {
    const profile = parseProfile({
      name: 'minimal',
      columns: { orderNumber: 'PO', quantity: 'Qty', unit: 'UoM', productExternalId: 'Article' },
    });
    expect(profile).toMatchObject({
      dateFormat: 'iso',
      complete: false,
      ownCompanyAs: 'buyer',
      productCodeId: 'ERP_ID',
      unitAliases: {},
      statusAliases: {},
    });
  });

  it('lists every problem of a bad profile by path', () => {
    const attempt = () =>
      parseProfile({
        name: 'bad',
        columns: { quantity: 'Qty', colour: 'Colour' },
        constants: { orderNumber: 'PO-1' },
        dateFormat: 'ymd',
        unitAliases: { stuks: 'STUKS' },
        statusAliases: { Open: 'OPEN' },
      });
    expect(attempt).toThrow(ProfileError);
    const message = (() => {
      try {
        attempt();
        return '';
      } catch (error) {
        return (error as Error).message;
      }
    })();
    expect(message).toMatch(/columns/);
    expect(message).toMatch(/colour/);
    expect(message).toMatch(/dateFormat/);
    expect(message).toMatch(/unitAliases\.stuks/);
    expect(message).toMatch(/statusAliases\.Open/);
  });

  it('says every problem on one line, a long list of allowed values cut short, and the value most likely meant', () => {
    let message = '';
    try {
      parseProfile(
        {
          name: 'bad',
          columns: { ordreNumber: 'PO', quantity: 'Qty', unit: 'UoM', productExternalId: 'Article' },
          unitAliases: { stuks: 'PIECE' },
          responsiblePersonIds: { 'not-an-email': 'u1' },
        },
        'mapping profile eu.json',
      );
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).not.toContain('\n');
    expect(message).toMatch(/^mapping profile eu\.json is not valid: /);
    expect(message).toContain('columns: unknown key "ordreNumber" (did you mean "orderNumber"?)');
    expect(message).toMatch(
      /unitAliases\.stuks: "PIECE" is not one of ACRE, [A-Z_, ]+ and \d+ more \(did you mean "PIECES"\?\)/,
    );
    expect(message).toContain(
      'responsiblePersonIds: key "not-an-email" is not valid (Invalid email address)',
    );
    expect(message.length).toBeLessThan(600);
  });

  it('requires an order number column, a quantity column, a unit and a product source', () => {
    expect(() =>
      parseProfile({ name: 'x', columns: { quantity: 'q', unit: 'u', productCode: 'p' } }),
    ).toThrow(/a column must feed orderNumber/);
    expect(() =>
      parseProfile({ name: 'x', columns: { orderNumber: 'o', quantity: 'q', unit: 'u' } }),
    ).toThrow(/productExternalId or productCode/);
    expect(() =>
      parseProfile({ name: 'x', columns: { orderNumber: 'o', quantity: 'q', productCode: 'p' } }),
    ).toThrow(/must give the unit/);
    expect(() =>
      parseProfile({
        name: 'x',
        columns: { orderNumber: 'o', quantity: 'q', productCode: 'p' },
        constants: { unit: 'PIECES' },
      }),
    ).not.toThrow();
  });

  it('loads a profile from a JSON file, naming the file when it is wrong', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'erp-profile-'));
    const good = join(dir, 'good.json');
    writeFileSync(
      good,
      JSON.stringify({
        name: 'sap',
        columns: { orderNumber: 'EBELN', quantity: 'MENGE', unit: 'MEINS', productCode: 'MATNR' },
        decimalSeparator: ',',
        complete: true,
      }),
    );
    await expect(loadProfileFile(good)).resolves.toMatchObject({
      name: 'sap',
      decimalSeparator: ',',
      complete: true,
    });
    const broken = join(dir, 'broken.json');
    writeFileSync(broken, '{ "name": ');
    await expect(loadProfileFile(broken)).rejects.toThrow(/cannot read mapping profile .*broken\.json/);
    await expect(loadProfileFile(join(dir, 'missing.json'))).rejects.toThrow(ProfileError);
  });

  it('binds columns to the export header case-insensitively and reports the missing ones', () => {
    const binding = bindColumns(DEFAULT_PROFILE, [
      'Order_Number ',
      'QUANTITY',
      'unit',
      'product_external_id',
    ]);
    expect(binding.bound).toEqual({
      orderNumber: 'Order_Number ',
      quantity: 'QUANTITY',
      unit: 'unit',
      productExternalId: 'product_external_id',
    });
    expect(binding.missing.map((entry) => entry.field)).toContain('orderDate');
  });
});
