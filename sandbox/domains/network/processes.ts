/**
 * Process reference data: identical for every account (spec 03, reference data). Production processes are the
 * stages of a supply chain (tier labels derive from `depthLevel`); each facility process names its parent stage.
 */
export interface ProductionProcess {
  id: string;
  name: string;
  depthLevel: number;
}

export interface FacilityProcess {
  id: string;
  name: string;
  productionProcessId: string;
}

export const PRODUCTION_PROCESSES: readonly ProductionProcess[] = [
  { id: 'SOURCING_AND_IMPORT', name: 'Sourcing and import', depthLevel: 0 },
  { id: 'MANUFACTURING', name: 'Manufacturing', depthLevel: 1 },
  { id: 'TRIMS_AND_COMPONENTS', name: 'Trims and components', depthLevel: 2 },
  { id: 'FABRIC_PROCESSING', name: 'Fabric processing', depthLevel: 2 },
  { id: 'FABRIC_PRODUCTION', name: 'Fabric production', depthLevel: 3 },
  { id: 'YARN_PRODUCTION', name: 'Yarn production', depthLevel: 4 },
  { id: 'FIBER_PROCESSING', name: 'Fiber processing', depthLevel: 5 },
  { id: 'RAW_MATERIAL_PRODUCTION', name: 'Raw material production', depthLevel: 6 },
];

const FACILITY_PROCESS_NAMES: Record<string, readonly string[]> = {
  SOURCING_AND_IMPORT: [
    'Agent',
    'Importer',
    'Exporter',
    'Trading company',
    'Wholesaler',
    'Distribution centre',
    'Warehouse',
    'Logistics provider',
    'Freight forwarder',
    'Customs broker',
    'Sourcing office',
    'Buying house',
  ],
  MANUFACTURING: [
    'Cut make trim',
    'Cutting',
    'Sewing',
    'Garment assembly',
    'Embroidery',
    'Garment printing',
    'Garment dyeing',
    'Garment washing',
    'Laundry',
    'Pressing',
    'Packing',
    'Quality assurance',
    'Finishing',
    'Knitting garments',
    'Linking',
    'Hand stitching',
    'Pleating',
    'Laser finishing',
    'Heat transfer',
    'Bonding',
    'Shoe lasting',
    'Shoe stitching',
    'Sole attaching',
    'Leather goods assembly',
  ],
  TRIMS_AND_COMPONENTS: [
    'Button manufacturing',
    'Zipper manufacturing',
    'Label weaving',
    'Label printing',
    'Hangtag printing',
    'Thread manufacturing',
    'Elastic manufacturing',
    'Interlining manufacturing',
    'Packaging manufacturing',
    'Metal trim casting',
    'Sole manufacturing',
    'Lace manufacturing',
    'Ribbon weaving',
    'Buckle manufacturing',
  ],
  FABRIC_PROCESSING: [
    'Fabric dyeing',
    'Fabric printing',
    'Digital printing',
    'Bleaching',
    'Mercerising',
    'Sanforising',
    'Coating',
    'Laminating',
    'Brushing',
    'Calendering',
    'Fabric finishing',
    'Fabric washing',
    'Tanning',
    'Leather finishing',
    'Piece dyeing',
    'Yarn dyed finishing',
  ],
  FABRIC_PRODUCTION: [
    'Weaving mill',
    'Knitting mill',
    'Circular knitting',
    'Flat knitting',
    'Warp knitting',
    'Nonwoven production',
    'Denim weaving',
    'Jacquard weaving',
    'Felt production',
    'Tufting',
    'Braiding',
    'Crochet',
  ],
  YARN_PRODUCTION: [
    'Spinning mill',
    'Ring spinning',
    'Open end spinning',
    'Air jet spinning',
    'Yarn twisting',
    'Yarn texturing',
    'Yarn dyeing',
    'Filament extrusion',
    'Recycled yarn spinning',
    'Worsted spinning',
    'Woollen spinning',
  ],
  FIBER_PROCESSING: [
    'Ginning',
    'Scouring',
    'Combing',
    'Carding',
    'Retting',
    'Fiber recycling',
    'Mechanical recycling',
    'Chemical recycling',
    'Polymerisation',
    'Pulp processing',
    'Silk reeling',
    'Fiber blending',
  ],
  RAW_MATERIAL_PRODUCTION: [
    'Cotton farming',
    'Organic cotton farming',
    'Wool farming',
    'Sheep shearing',
    'Silk farming',
    'Flax farming',
    'Hemp farming',
    'Forestry',
    'Cattle farming',
    'Petrochemical production',
    'Post consumer collection',
    'Pre consumer collection',
  ],
};

const toId = (name: string): string => name.toUpperCase().replace(/[^A-Z0-9]+/g, '_');

export const FACILITY_PROCESSES: readonly FacilityProcess[] = Object.entries(FACILITY_PROCESS_NAMES)
  .flatMap(([productionProcessId, names]) =>
    names.map((name) => ({ id: toId(name), name, productionProcessId })),
  )
  .sort((a, b) => (a.id < b.id ? -1 : 1));

const FACILITY_BY_ID = new Map(FACILITY_PROCESSES.map((process) => [process.id, process]));
const PRODUCTION_BY_ID = new Map(PRODUCTION_PROCESSES.map((process) => [process.id, process]));

export const facilityProcess = (id: string): FacilityProcess | undefined => FACILITY_BY_ID.get(id);
export const productionProcess = (id: string): ProductionProcess | undefined => PRODUCTION_BY_ID.get(id);
