/**
 * Reading what n8n reports about an execution: the JSON `n8n execute --rawOutput` prints, the snapshot files
 * `n8n execute-batch --snapshot` writes, and executions fetched from the REST API all hold the same run
 * data (`data.resultData.runData[<node name>][<run>].data.main[<output>][<item>]`).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** What an n8n CLI command left behind (N8nInstance.command): the input of the readers below. */
export interface CommandResult {
	code: number;
	/** The signal that ended the process, when one did (`code` is then 128), and whether it was the harness's timeout. */
	signal?: NodeJS.Signals;
	timedOut?: boolean;
	stdout: string;
	stderr: string;
	/** Wall-clock milliseconds. */
	durationMs: number;
}

export interface OutputItem {
	json: Record<string, unknown>;
	binary?: Record<
		string,
		{ data?: string; id?: string; mimeType?: string; fileName?: string; fileSize?: string; [key: string]: unknown }
	>;
	pairedItem?: { item: number; input?: number } | Array<{ item: number; input?: number }> | number;
	error?: unknown;
}

/** An execution's error as n8n shows it in the editor: message, description, HTTP code and the node. */
export interface ExecutionError {
	message: string;
	description?: string | null;
	httpCode?: string | null;
	name?: string;
	node?: { name: string; type: string };
	[key: string]: unknown;
}

interface TaskData {
	data?: Record<string, Array<OutputItem[] | null>>;
	error?: ExecutionError;
	executionStatus?: string;
}

export interface RunData {
	data?: {
		resultData: {
			runData: Record<string, TaskData[]>;
			error?: ExecutionError;
			lastNodeExecuted?: string;
		};
	};
	status?: string;
	finished?: boolean;
	mode?: string;
	[key: string]: unknown;
}

export class ExecutionResult {
	constructor(
		/** The run data, undefined when n8n printed none (it crashed before running the workflow). */
		readonly run: RunData | undefined,
		/** The workflow's error (a node failed), as n8n reports it. */
		readonly error: ExecutionError | undefined,
		/** What the process printed, for failure messages. */
		readonly log: string,
		readonly durationMs = 0,
	) {}

	get ok(): boolean {
		return this.run !== undefined && this.error === undefined;
	}

	/** Names of the nodes that ran. */
	nodes(): string[] {
		return Object.keys(this.run?.data?.resultData.runData ?? {});
	}

	/** The items a node put on an output (default: its first run, first output). */
	items(nodeName: string, options: { output?: number; run?: number } = {}): OutputItem[] {
		const runs = this.run?.data?.resultData.runData[nodeName];
		if (!runs) {
			throw new Error(
				`Node "${nodeName}" did not run (ran: ${this.nodes().join(', ') || 'nothing'})` +
					(this.error ? `; error: ${this.error.message}` : '') +
					(this.run ? '' : `\n${this.log.split('\n').slice(-30).join('\n')}`),
			);
		}
		return runs[options.run ?? 0]?.data?.main?.[options.output ?? 0] ?? [];
	}

	/** The `json` of every item of a node's output. */
	json(nodeName: string, options: { output?: number; run?: number } = {}): Array<Record<string, unknown>> {
		return this.items(nodeName, options).map((item) => item.json);
	}

	/** The error a node's run ended with (also set on the execution as `error`). */
	nodeError(nodeName: string): ExecutionError | undefined {
		return this.run?.data?.resultData.runData[nodeName]?.[0]?.error;
	}

	/** A readable account of a failure, for assertion messages. */
	describe(): string {
		if (this.ok) return 'ok';
		if (this.error) return `${this.error.message}${this.error.description ? ` (${this.error.description})` : ''}`;
		return this.log.split('\n').slice(-30).join('\n');
	}
}

/**
 * The JSON that `n8n execute --rawOutput` prints after its log lines: from the first line that is exactly
 * `{` to the next line that is exactly `}` (the run data is printed indented, so only its own braces sit
 * at the start of a line).
 */
export function extractPrintedJson(text: string): unknown {
	const lines = text.split('\n');
	const start = lines.findIndex((line) => line.trimEnd() === '{');
	if (start < 0) return undefined;
	const end = lines.findIndex((line, i) => i > start && line.trimEnd() === '}');
	if (end < 0) return undefined;
	try {
		return JSON.parse(lines.slice(start, end + 1).join('\n'));
	} catch {
		return undefined;
	}
}

export function parseExecuteOutput(result: CommandResult): ExecutionResult {
	const log = result.stdout + (result.stderr ? `\n${result.stderr}` : '');
	const run = extractPrintedJson(result.stdout) as RunData | undefined;
	const error = run?.data?.resultData.error;
	if (run && !error && result.code !== 0) {
		// n8n 2.41.1 on Node 24 was seen (once in a CI run) to end by a signal nobody sent after it had printed a complete
		// run without error: a crash in its teardown, after the workflow. The run stands; the crash is told, not hidden.
		if (result.signal && !result.timedOut) {
			console.warn(
				`n8n execute ended by ${result.signal} after printing a complete run without error\n${log.slice(-2000)}`,
			);
			return new ExecutionResult(run, undefined, log, result.durationMs);
		}
		const how = result.signal ? `was killed (${result.signal}) after its timeout` : `exited with ${result.code}`;
		return new ExecutionResult(run, { message: `n8n execute ${how}` }, log, result.durationMs);
	}
	return new ExecutionResult(run, error, log, result.durationMs);
}

interface BatchSummary {
	executions: Array<{ workflowId: string; executionStatus: string; error?: string }>;
}

export function parseBatchSnapshot(
	result: CommandResult,
	summaryFile: string,
	snapshotDir: string,
	workflowIds: string[],
): Map<string, ExecutionResult> {
	const log = result.stdout + (result.stderr ? `\n${result.stderr}` : '');
	const summary: BatchSummary = existsSync(summaryFile)
		? (JSON.parse(readFileSync(summaryFile, 'utf8')) as BatchSummary)
		: { executions: [] };
	const results = new Map<string, ExecutionResult>();
	for (const id of workflowIds) {
		const snapshot = join(snapshotDir, `${id}-snapshot.json`);
		const entry = summary.executions.find((execution) => execution.workflowId === id);
		if (existsSync(snapshot)) {
			results.set(id, new ExecutionResult(JSON.parse(readFileSync(snapshot, 'utf8')) as RunData, undefined, log));
		} else {
			const message =
				entry?.error ??
				`execute-batch reported nothing for workflow ${id} (exit ${result.code}):\n${log.split('\n').slice(-30).join('\n')}`;
			results.set(id, new ExecutionResult(undefined, { message }, log));
		}
	}
	return results;
}

/** An execution fetched through the public API (`GET /api/v1/executions?includeData=true`). */
export function fromApiExecution(execution: { data?: RunData['data'] } & Record<string, unknown>): ExecutionResult {
	const run = { ...execution, data: execution.data } as RunData;
	return new ExecutionResult(run, run.data?.resultData.error, '');
}
