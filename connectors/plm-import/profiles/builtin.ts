import { parseMappingProfile, type MappingProfile, type MappingProfileInput } from './schema';

const list = (column: string) => ({ column, split: ';' });

const nativeInput: MappingProfileInput = {
  name: 'native',
  description:
    'One row per product at any level: externalId, parentExternalId, optional level; code columns named by code type.',
  layout: 'native',
  ignoreMissingColumns: true,
  parentExternalId: 'parentExternalId',
  level: 'level',
  mapping: {
    externalId: 'externalId',
    fields: {
      name: 'name',
      description: 'description',
      gender: 'gender',
      color: 'color',
      dimension: 'dimension',
      styleTypeId: 'styleType',
      isComponent: { column: 'isComponent', default: false },
      brands: list('brands'),
      seasons: list('seasons'),
      collections: list('collections'),
      departments: list('departments'),
      suppliers: list('suppliers'),
      weightValue: 'weight',
      weightUnit: 'weightUnit',
      composition: 'composition',
    },
    autoCodeColumns: true,
  },
};

const flatInput: MappingProfileInput = {
  name: 'flat',
  description:
    'One row per SKU with its style and colour; continuation rows may leave style and colour columns blank.',
  layout: 'flat',
  ignoreMissingColumns: true,
  fillDown: ['Style Number', 'Colour Code'],
  style: {
    externalId: 'Style Number',
    fields: {
      name: 'Style Name',
      description: 'Description',
      gender: 'Gender',
      styleTypeId: 'Style Type',
      isComponent: { constant: false },
      brands: list('Brand'),
      seasons: list('Season'),
      collections: list('Collection'),
      departments: list('Department'),
      composition: 'Composition',
    },
    codes: [{ codeId: 'PLM_ID', source: 'Style Number' }],
  },
  variant: {
    externalId: { template: '{Style Number}-{Colour Code}' },
    fields: { name: { template: '{Style Name} {Colour}' }, color: 'Colour' },
    codes: [{ codeId: 'PLM_ID', source: { template: '{Style Number}-{Colour Code}' } }],
  },
  sku: {
    externalId: 'SKU',
    fields: {
      name: { template: '{Style Name} {Colour} {Size}' },
      color: 'Colour',
      dimension: 'Size',
      weightValue: 'Weight (g)',
      weightUnit: { constant: 'GRAM' },
    },
    codes: [
      { codeId: 'PLM_ID', source: 'SKU' },
      { codeId: 'EAN_GTIN_13', source: 'EAN' },
    ],
  },
};

export const builtinProfiles: Readonly<Record<'native' | 'flat', MappingProfile>> = {
  native: parseMappingProfile(nativeInput),
  flat: parseMappingProfile(flatInput),
};

export function builtinProfile(name: string): MappingProfile {
  if (name === 'native' || name === 'flat') return builtinProfiles[name];
  throw new Error(`unknown built-in profile '${name}' (built-in profiles: native, flat)`);
}
