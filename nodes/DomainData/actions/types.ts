import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

/** Every operation gets all input items at once: bulk and enrich batch across items, the others loop. */
export type OperationExecute = (this: IExecuteFunctions, items: INodeExecutionData[]) => Promise<INodeExecutionData[]>;
