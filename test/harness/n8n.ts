/**
 * Runs our nodes in-process through n8n-core's real execution contexts (ExecuteContext, PollContext,
 * LoadOptionsContext), so that every request goes through n8n's own `httpRequestWithAuthentication`
 * (axios, the credential's generic authentication, n8n's error wrapping) against the simulator over
 * real HTTP. Only the parts of n8n that live in the `n8n` CLI package (the credentials store) are
 * replaced, by `HarnessCredentialsHelper` below.
 */
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';

import type {
	ICredentialDataDecryptedObject,
	ICredentialsExpressionResolveValues,
	ICredentialType,
	IDataObject,
	IExecuteData,
	IHttpRequestOptions,
	INode,
	INodeCredentialsDetails,
	INodeExecutionData,
	INodeParameters,
	INodePropertyOptions,
	INodeType,
	INodeTypes,
	IRunExecutionData,
	IWorkflowExecuteAdditionalData,
	WorkflowExecuteMode,
} from 'n8n-workflow';
import { ICredentialsHelper, NodeHelpers, Workflow, createRunExecutionData } from 'n8n-workflow';

import { DomainDataApi } from '../../credentials/DomainDataApi.credentials';
import { DomainData } from '../../nodes/DomainData/DomainData.node';
import { DomainDataTrigger } from '../../nodes/DomainDataTrigger/DomainDataTrigger.node';

// n8n-core reads its folders from the environment when first loaded: give it a private one.
process.env.N8N_USER_FOLDER ??= mkdtempSync(join(tmpdir(), 'dd-harness-'));
process.env.N8N_DEFAULT_BINARY_DATA_MODE ??= 'filesystem';
process.env.N8N_ENCRYPTION_KEY ??= 'harness-encryption-key';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const core = require('n8n-core') as typeof import('n8n-core');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { Container } = require('@n8n/di') as typeof import('@n8n/di');

export const NODE_TYPES = {
	domainData: 'n8n-nodes-domain-data.domainData',
	domainDataTrigger: 'n8n-nodes-domain-data.domainDataTrigger',
} as const;

export interface HarnessCredentials {
	apiKey: string;
	baseUrl: string;
}

const nodeClasses: Record<string, () => INodeType> = {
	[NODE_TYPES.domainData]: () => new DomainData(),
	[NODE_TYPES.domainDataTrigger]: () => new DomainDataTrigger(),
};

const credentialType: ICredentialType = new DomainDataApi();

class HarnessNodeTypes implements INodeTypes {
	private readonly cache = new Map<string, INodeType>();

	getByName(nodeType: string): INodeType {
		return this.getByNameAndVersion(nodeType);
	}

	getByNameAndVersion(nodeType: string): INodeType {
		let instance = this.cache.get(nodeType);
		if (!instance) {
			// n8n names a node used as an AI tool `<type>Tool` and runs the same class, with the description's
			// name ending in Tool too (parameters shown only in tools depend on it).
			const make = nodeClasses[nodeType] ?? nodeClasses[nodeType.replace(/Tool$/, '')];
			if (!make) throw new Error(`Unknown node type ${nodeType}`);
			instance = make();
			if (!nodeClasses[nodeType])
				instance.description = { ...instance.description, name: `${instance.description.name}Tool` };
			this.cache.set(nodeType, instance);
		}
		return instance;
	}

	getKnownTypes(): IDataObject {
		return {};
	}
}

/** What n8n's CLI does for a generic credential: resolve `={{$credentials.x}}` values into the request. */
class HarnessCredentialsHelper extends ICredentialsHelper {
	constructor(private readonly credentials: HarnessCredentials) {
		super();
	}

	getParentTypes(): string[] {
		return [];
	}

	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
		requestOptions: IHttpRequestOptions,
		workflow: Workflow,
		node: INode,
	): Promise<IHttpRequestOptions> {
		if (typeName !== credentialType.name) throw new Error(`Unexpected credential type ${typeName}`);
		const authenticate = credentialType.authenticate;
		if (!authenticate || typeof authenticate === 'function' || authenticate.type !== 'generic') {
			throw new Error('The harness only knows generic authentication');
		}
		const headers = { ...(requestOptions.headers ?? {}) } as IDataObject;
		for (const [name, value] of Object.entries(authenticate.properties.headers ?? {})) {
			headers[name] = workflow.expression.getSimpleParameterValue(
				node,
				value as string,
				'internal',
				{ $credentials: credentials },
				undefined,
				'',
			) as string;
		}
		return { ...requestOptions, headers };
	}

	async preAuthentication() {
		return undefined;
	}

	async getCredentials(): Promise<never> {
		throw new Error('Not used by the harness');
	}

	async getDecrypted(
		_additionalData: IWorkflowExecuteAdditionalData,
		_nodeCredentials: INodeCredentialsDetails,
		_type: string,
		_mode: WorkflowExecuteMode,
		_executeData?: IExecuteData,
		_raw?: boolean,
		_expressionResolveValues?: ICredentialsExpressionResolveValues,
	): Promise<ICredentialDataDecryptedObject> {
		// A fresh copy per call, as n8n decrypts a fresh object every time.
		return { ...this.credentials };
	}

	async updateCredentials(): Promise<void> {}

	async updateCredentialsOauthTokenData(): Promise<void> {}

	getCredentialsProperties() {
		return credentialType.properties;
	}
}

let binaryDataReady: Promise<void> | undefined;

/** n8n's binary helpers store through BinaryDataService; set it up once, in filesystem mode like a server. */
async function ensureBinaryData(): Promise<void> {
	binaryDataReady ??= (async () => {
		const service = Container.get(core.BinaryDataService);
		await service.init();
	})();
	await binaryDataReady;
}

const nodeTypes = new HarnessNodeTypes();

export interface HarnessNodeOptions {
	type?: keyof typeof NODE_TYPES;
	parameters: INodeParameters;
	credentials: HarnessCredentials;
	continueOnFail?: boolean;
	/** Settings → On Error when it continues ("continueRegularOutput" with `continueOnFail` alone). */
	onError?: 'continueRegularOutput' | 'continueErrorOutput';
	/** Kept across polls to play the part of the workflow's saved static data. */
	staticData?: IDataObject;
	/** Plays the part of n8n's CLI when the node runs a sub-workflow (`additionalData.executeWorkflow`). */
	executeWorkflow?: IWorkflowExecuteAdditionalData['executeWorkflow'];
	/** The node's type as n8n names it (e.g. `…domainDataTool` when it runs as an AI tool). */
	nodeTypeName?: string;
	/** Further parts of n8n's CLI (e.g. `getRunExecutionData`, which reads an execution from the database). */
	additionalData?: Partial<IWorkflowExecuteAdditionalData>;
}

function makeWorkflow(options: HarnessNodeOptions) {
	const type = NODE_TYPES[options.type ?? 'domainData'];
	const nodeType = nodeTypes.getByNameAndVersion(options.nodeTypeName ?? type);
	// n8n fills in the defaults of every parameter the user did not touch before it runs a node.
	const parameters = NodeHelpers.getNodeParameters(
		nodeType.description.properties,
		options.parameters,
		true,
		false,
		null,
		nodeType.description,
	) as INodeParameters;
	const node: INode = {
		id: 'node-under-test',
		name: options.type === 'domainDataTrigger' ? 'Domain Data Trigger' : 'Domain Data',
		type: options.nodeTypeName ?? type,
		typeVersion: 1,
		position: [0, 0],
		parameters,
		credentials: { domainDataApi: { id: 'cred-1', name: 'Domain Data account' } },
		...(options.continueOnFail ? { onError: options.onError ?? ('continueRegularOutput' as const) } : {}),
	};
	const workflow = new Workflow({
		id: 'harness-workflow',
		name: 'Harness',
		nodes: [node],
		connections: {},
		active: false,
		nodeTypes,
		staticData: options.staticData,
		settings: {},
	});
	const additionalData = {
		credentialsHelper: new HarnessCredentialsHelper(options.credentials),
		executionId: 'harness-execution',
		restApiUrl: 'http://127.0.0.1:5678/rest',
		instanceBaseUrl: 'http://127.0.0.1:5678/',
		webhookBaseUrl: 'http://127.0.0.1:5678/webhook/',
		webhookWaitingBaseUrl: 'http://127.0.0.1:5678/webhook-waiting/',
		webhookTestBaseUrl: 'http://127.0.0.1:5678/webhook-test/',
		formWaitingBaseUrl: 'http://127.0.0.1:5678/form-waiting/',
		variables: {},
		currentNodeParameters: undefined,
		executionTimeoutTimestamp: undefined,
		userId: 'harness-user',
		setExecutionStatus: () => {},
		hooks: undefined,
		executeWorkflow: options.executeWorkflow,
		...options.additionalData,
	} as unknown as IWorkflowExecuteAdditionalData;
	return { workflow, node, additionalData };
}

export interface NodeRunResult {
	/** The node's first output, or [] when it threw. */
	items: INodeExecutionData[];
	/** What the node threw (NodeApiError or NodeOperationError), as n8n would show it. */
	error?: Error & { description?: string; httpCode?: string | null };
}

/** A real n8n-core ExecuteContext for the Domain Data node, as n8n builds it for a manual execution. */
export async function createExecuteContext(
	options: HarnessNodeOptions & { input?: INodeExecutionData[]; abortSignal?: AbortSignal },
) {
	await ensureBinaryData();
	const { workflow, node, additionalData } = makeWorkflow(options);
	const input = options.input ?? [{ json: {} }];
	const runExecutionData: IRunExecutionData = createRunExecutionData({
		resultData: { runData: {} },
	});
	const executeData: IExecuteData = { node, data: { main: [input] }, source: null };
	const context = new core.ExecuteContext(
		workflow,
		node,
		additionalData,
		'manual',
		runExecutionData,
		0,
		input,
		{ main: [input] },
		executeData,
		[],
		options.abortSignal,
	);
	return { context, node, workflow };
}

/** Runs the Domain Data node once over `input` items (default: one empty item), as a manual execution. */
export async function runNode(
	options: HarnessNodeOptions & { input?: INodeExecutionData[]; abortSignal?: AbortSignal },
): Promise<NodeRunResult> {
	const { context, node } = await createExecuteContext(options);
	const nodeType = nodeTypes.getByNameAndVersion(node.type);
	try {
		const output = await nodeType.execute!.call(context);
		return { items: (output as INodeExecutionData[][])[0] ?? [] };
	} catch (error) {
		return { items: [], error: error as NodeRunResult['error'] };
	}
}

/**
 * Runs the trigger's poll() once; `staticData` survives between calls, as it does in n8n. `reported` receives
 * what the poll reports through n8n's trigger error reporting (`__emitError`: a failed execution in n8n).
 */
export async function runPoll(
	options: HarnessNodeOptions & { mode?: 'trigger' | 'manual'; reported?: Error[] },
): Promise<INodeExecutionData[][] | null> {
	await ensureBinaryData();
	const { workflow, node, additionalData } = makeWorkflow({ ...options, type: 'domainDataTrigger' });
	const context = new core.PollContext(
		workflow,
		node,
		additionalData,
		options.mode ?? 'trigger',
		'activate',
		undefined,
		options.reported && ((error: Error) => void options.reported!.push(error)),
	);
	const nodeType = nodeTypes.getByNameAndVersion(node.type);
	const result = await nodeType.poll!.call(context);
	// n8n saves static data after a poll only when it changed; the object itself is shared with the caller.
	if (options.staticData && workflow.staticData) {
		Object.assign(options.staticData, JSON.parse(JSON.stringify(workflow.staticData)));
	}
	return result;
}

/** Calls a loadOptions method as the editor does for a dropdown. */
export async function loadOptions(options: HarnessNodeOptions & { method: string }): Promise<INodePropertyOptions[]> {
	const { workflow, node, additionalData } = makeWorkflow(options);
	const context = new core.LoadOptionsContext(workflow, node, additionalData, 'parameters');
	const nodeType = nodeTypes.getByNameAndVersion(node.type);
	const method = nodeType.methods?.loadOptions?.[options.method];
	if (!method) throw new Error(`No loadOptions method ${options.method}`);
	return await method.call(context);
}

/** Reads a binary property written by the node back into a Buffer (small test files only). */
export async function readBinary(item: INodeExecutionData, property = 'data'): Promise<Buffer> {
	const binary = item.binary?.[property];
	if (!binary) throw new Error(`No binary property ${property}`);
	return await core.getBinaryDataBuffer({ main: [[item]] }, 0, binary, 0);
}

/** Opens a binary property as a stream, for files too large to read whole. */
export async function openBinaryStream(item: INodeExecutionData, property = 'data') {
	const binary = item.binary?.[property];
	if (!binary?.id) throw new Error(`No stored binary property ${property}`);
	return await Container.get(core.BinaryDataService).getAsStream(binary.id);
}

/**
 * The data files in n8n's binary data folder (filesystem mode), relative to it, without their
 * `.metadata` companions: what a node left on disk.
 */
export function binaryDataFiles(): string[] {
	const root = Container.get(core.BinaryDataConfig).localStoragePath;
	const files: string[] = [];
	const walk = (dir: string) => {
		let entries;
		try {
			entries = readdirSync(dir, { withFileTypes: true });
		} catch {
			return; // not created yet
		}
		for (const entry of entries) {
			const path = join(dir, entry.name);
			if (entry.isDirectory()) walk(path);
			else if (!entry.name.endsWith('.metadata')) files.push(relative(root, path));
		}
	};
	walk(root);
	return files.sort();
}

/** The absolute path of a file that binaryDataFiles lists. */
export function binaryDataPath(file: string): string {
	return join(Container.get(core.BinaryDataConfig).localStoragePath, file);
}

/** What n8n does to an execution's binary data when it deletes the execution (pruning, or not saved). */
export async function deleteExecutionBinaryData(workflowId: string, executionId: string): Promise<void> {
	await Container.get(core.BinaryDataService).deleteMany([{ type: 'execution', workflowId, executionId }]);
}
