/**
 * The limits table of docs/operations.md: each limit's value from the code (a constant of nodes/, or a parameter's
 * default and range as the editor has them), what the node does at it in words. A limit of the service or of n8n
 * (no constant of ours) has words only. test/unit/package/docs.promises.test.ts holds every numeric constant of
 * nodes/ to this table or to NOT_LIMITS.
 */
import type { INodeProperties } from 'n8n-workflow';

import { DomainData } from '../../nodes/DomainData/DomainData.node';
import { TOOL_MAX_BYTES, TOOL_MAX_RECORDS, MAX_FULL_TEXT } from '../../nodes/DomainData/actions/tool/answer';
import { COMPARE_LIMITS } from '../../nodes/DomainData/helpers/compare/refusals';
import { RETRY_TIMING } from '../../nodes/DomainData/transport/retry';
import { DomainDataTrigger } from '../../nodes/DomainDataTrigger/DomainDataTrigger.node';
import { SEEN_LIMIT } from '../../nodes/DomainDataTrigger/pollState';
import { figure } from './parameters';
import { constantReader } from './sourceFacts';

const MB = 1024 * 1024;

/** The constants of nodes/ the table imports (by their names in the code), besides those it reads by name. */
export const IMPORTED_LIMITS = {
	'COMPARE_LIMITS.maxDomains': COMPARE_LIMITS.maxDomains,
	'COMPARE_LIMITS.maxKeptBytes': COMPARE_LIMITS.maxKeptBytes,
	'RETRY_TIMING.maxRetryAfterMs': RETRY_TIMING.maxRetryAfterMs,
	'RETRY_TIMING.maxDelayMs': RETRY_TIMING.maxDelayMs,
	'RETRY_TIMING.baseDelayMs': RETRY_TIMING.baseDelayMs,
	TOOL_MAX_RECORDS,
	TOOL_MAX_BYTES,
	MAX_FULL_TEXT,
	SEEN_LIMIT,
};

/**
 * Numeric constants of nodes/ that are no limit a user meets: bytes the code looks for, tags, hash seeds, sizes of
 * internal buffers, and how much of a value a message quotes (the messages are in docs/troubleshooting.md).
 */
export const NOT_LIMITS: Record<string, string> = {
	STATE_VERSION: 'the format of the trigger state',
	NOT_LISTED: 'a marker value',
	NOT_FOUND: 'a marker value',
	SELECTED: 'a flag',
	SEEN_IN_BASE: 'a flag',
	FIELD_END: 'a tag of the kept-record encoding',
	STRING_VALUE: 'a tag of the kept-record encoding',
	SET: 'a tag of the kept-record encoding',
	NULL_VALUE: 'a tag of the kept-record encoding',
	OTHER_VALUE: 'a tag of the kept-record encoding',
	ARRAY_VALUE: 'a tag of the kept-record encoding',
	OBJECT_VALUE: 'a tag of the kept-record encoding',
	SEED1: 'a hash seed',
	SEED2: 'a hash seed',
	M1: 'a hash multiplier',
	M2: 'a hash multiplier',
	F1: 'a hash multiplier',
	F2: 'a hash multiplier',
	INITIAL_CAPACITY: "the first size of Compare's table, which grows",
	CHUNK_BYTES: "a chunk of Compare's kept records (bounded by COMPARE_LIMITS.maxKeptBytes)",
	MAX_CHUNKS: 'above COMPARE_LIMITS.maxKeptBytes, never reached',
	WRITE_BYTES: 'the size of a write to a file',
	PIECE_CHARS: 'the size of a piece of text serialised at once',
	PIECE_ROOM: 'the room kept in a spool file for its last piece',
	LONG_RUN: 'when the JSON reader looks for long integers',
	MAX_UNWRAPS: 'quotes and brackets peeled off a domain name',
	HEAD: 'how much of a damaged line a message quotes',
	TAIL: 'how much of a damaged line a message quotes',
	LABELS_IN_ERRORS: 'how many labels a message names',
	NAMED_IN_MESSAGES: 'how many values a message names',
	EXAMPLES: 'how many entries a hint names',
	EXAMPLE_CHARS: 'how much of an entry a hint quotes',
	SKIPPED_LINE_NUMBERS_KEPT: 'how many line numbers a hint names',
	MAX_ERROR_CHARS: "how much of an error a tool's answer quotes",
	MAX_LABEL: "how much of a label a tool's answer quotes",
	MAX_FILTER_TEXT: "how much of a filter a tool's answer quotes",
	MAX_PAGES_WITHOUT_TOTAL: 'a runaway search of a faulty service (its message is in troubleshooting.md)',
	MANY_ITEMS: 'when Get points at Bulk Get in a hint',
	DEFAULT_PAGE_SIZE: "Page Size's default (the Search parameters in docs/domain.md)",
	DEFAULT_CONCURRENCY: "Concurrency's default (the parameters in docs/domain.md)",
	DEFAULT_BATCH_SIZE: "Batch Size's default (the parameters in docs/dataset.md)",
	DEFAULT_MAX_RECORDS_IN_MEMORY: "Max Records in Memory's default (read from the parameter here)",
	DEFAULT_MAX_FILE_MB: "Max File Size's default (read from the parameter here)",
	MIN_MAX_FILE_MB: "Max File Size's least value (read from the parameter here)",
	MAX_ATTACHED_RECORDS: "Number of Records' range (read from the trigger's parameter here)",
	MAX_TIMER_MS: "the timeouts' range (read from the parameters here)",
	DEFAULT_MAX_ATTEMPTS: "Max Attempts' default (read from the parameter here)",
	'DEFAULT_CALL_LIMITS.idleTimeoutMs': "Idle Timeout's default (read from the parameter here)",
	'DEFAULT_CALL_LIMITS.deadlineMs': "Request Deadline's default (read from the parameter here)",
};

/** A parameter of the Domain Data node (or the trigger) by its path, e.g. `options`, `concurrency`. */
function parameter(properties: INodeProperties[], show: Record<string, string>, path: string[]): INodeProperties {
	let candidates = properties.filter((property) =>
		Object.entries(show).every(([key, value]) => {
			const shown = property.displayOptions?.show?.[key];
			return !shown || shown.includes(value);
		}),
	);
	let found: INodeProperties | undefined;
	for (const name of path) {
		found = candidates.find((candidate) => candidate.name === name && !candidate.displayOptions?.show?.['@tool']?.[0]);
		candidates = (found?.options ?? []).filter((entry): entry is INodeProperties => 'type' in entry);
	}
	if (!found) throw new Error(`No parameter ${path.join(' → ')} for ${JSON.stringify(show)} (scripts/docs/limits.ts)`);
	return found;
}

export interface Limit {
	limit: string;
	value: string;
	does: string;
}

type Read = (name: string) => number;
type Properties = INodeProperties[];

const STREAM = { resource: 'dataset', operation: 'stream' };
const range = (property: INodeProperties) => property.typeOptions as { minValue: number; maxValue: number };
const option = (node: Properties, name: string) => parameter(node, STREAM, ['options', name]);

function requestLimits(read: Read, node: Properties): Limit[] {
	const names = read('BULK_MAX_NAMES');
	const pageSize = parameter(node, { resource: 'domain', operation: 'search' }, ['options', 'pageSize']);
	const concurrency = parameter(node, { resource: 'domain', operation: 'bulk' }, ['options', 'concurrency']);
	const [attempts, idle, deadline] = [
		option(node, 'maxAttempts'),
		option(node, 'idleTimeout'),
		option(node, 'requestDeadline'),
	];
	return [
		{
			limit: 'Names per bulk call',
			value: `${names} (the service's maximum)`,
			does: `Bulk Get and Enrich Items split the distinct names into calls of ${names}`,
		},
		{
			limit: 'Page size of Search',
			value: 'depends on the plan (the simulator: basic 50, pro 1,000)',
			does: `default ${figure(pageSize.default as number)}; a size the plan refuses fails with the service's reason and a hint to lower Page Size`,
		},
		{
			limit: 'Concurrent calls',
			value: `Options → Concurrency, default ${concurrency.default} (${range(concurrency).minValue}–${range(concurrency).maxValue})`,
			does: 'keeps Get, Bulk Get and Enrich Items within typical rate limits (about 5 requests per second)',
		},
		{
			limit: 'Retries',
			value:
				`Options → Max Attempts, default ${attempts.default} (${range(attempts).minValue}–${range(attempts).maxValue}); ` +
				`${read('MAX_ATTEMPTS_UNREACHABLE')} for a connection that cannot be made`,
			does:
				'requests in a row without progress on 429, 500, 502, 503, 504, refused, dropped or silent connections; ' +
				`waits of ${RETRY_TIMING.baseDelayMs / 2000}–${RETRY_TIMING.baseDelayMs / 1000} s between them, doubling up to ` +
				`${RETRY_TIMING.maxDelayMs / 1000} s; \`Retry-After\` honoured up to ` +
				`${RETRY_TIMING.maxRetryAfterMs / 1000} s`,
		},
		{
			limit: 'Silence',
			value:
				`${idle.default} s without a byte, or without a complete stream record (Options → Idle Timeout; at most ` +
				`${figure(range(idle).maxValue)} s)`,
			does: 'counts as a dropped connection',
		},
		{
			limit: 'A JSON answer',
			value:
				`whole within ${deadline.default} s per try (Options → Request Deadline; at most ` +
				`${figure(range(deadline).maxValue)} s), and at most ${read('JSON_BODY_LIMIT') / MB} MB`,
			does:
				'late: counts as a failed request, retried under Max Attempts; larger: not read further, the request fails ' +
				'and says so',
		},
		{
			limit: "A stream's socket while the node pauses its body (Sub-Workflow output without a spool)",
			value: "n8n's client keeps it for max(Idle Timeout, 1 hour)",
			does: 'a longer pause is cut by n8n and resumed (proxies usually cut much earlier, e.g. nginx after 60 s)',
		},
		{
			limit: 'One line of a dataset stream',
			value: `${read('MAX_LINE_BYTES') / MB} MB`,
			does: 'a longer line fails the read, naming its number: no record is that long',
		},
		{
			limit: 'Lines cut short that a resume tolerates',
			value: `${figure(read('DAMAGED_POSITIONS_KEPT'))} per read`,
			does: 'beyond, a line that comes whole after a resume ends the read with the "another order" error',
		},
		{
			limit: 'Error bodies',
			value: `${read('ERROR_BODY_LIMIT') / 1024} KB read`,
			does: 'the rest is never downloaded',
		},
	];
}

function datasetLimits(read: Read, node: Properties): Limit[] {
	const spool = `${read('SEGMENT_BYTES') / MB} MB`;
	const maxRecords = option(node, 'maxRecords');
	const maxFileSize = parameter(node, STREAM, ['maxFileSize']);
	const batchSize = parameter(node, STREAM, ['batchSize']);
	const domains = figure(COMPARE_LIMITS.maxDomains);
	const keptMb = `${COMPARE_LIMITS.maxKeptBytes / MB} MB`;
	return [
		{
			limit: 'Records in memory (Stream and Compare, Items and Batches output)',
			value: `Options → Max Records in Memory, default ${figure(maxRecords.default as number)} (Compare: changes)`,
			does: "fails with a pointer to the File output, Filters or a Limit instead of exhausting n8n's memory",
		},
		{
			limit: 'Domains per snapshot (Dataset → Compare)',
			value: domains,
			does:
				`fails with \`The dataset "<label>" has more than ${domains} records, more than Dataset → Compare can hold\`, ` +
				"pointing to Dataset → Stream with the File or Sub-Workflow output. The service's index holds about 0.9 " +
				"million domains; what Compare keeps per domain, also at the bound: [Compare's memory per domain](performance.md#compares-memory-per-domain)",
		},
		{
			limit: 'Older records kept by Compare between its passes',
			value: keptMb,
			does:
				'all outputs (Items and Batches are bounded earlier by Max Records in Memory): fails with `The comparison of ' +
				`"<new>" with "<old>" needs to keep more than ${keptMb} of older records for its changes\`: compare fewer ` +
				'fields, add filters, set a Limit, or compare snapshots closer in time',
		},
		{
			limit: `Integers beyond 2^53 (${figure(Number.MAX_SAFE_INTEGER)}) in answers`,
			value: 'not representable as JSON numbers in n8n',
			does:
				"kept exact: a domain's `id` (or any integer field) beyond 2^53 comes out as a **string** of its exact digits " +
				'(`"9007199254740993"`), not a rounded number; a search cursor goes back to the service with the digits it ' +
				'came with ([Search](domain.md#search))',
		},
		{
			limit: 'Snapshot size',
			value: 'about 1,000,000 records, 0.5 to 2.5 GB',
			does:
				"use the Sub-Workflow output (one batch in memory at a time), the File output (streamed to n8n's binary " +
				'storage) or Filters',
		},
		{
			limit: 'Spool of the Sub-Workflow output',
			value: `the selection's NDJSON size in n8n's binary data storage (files of ${spool}), per run`,
			does:
				"read at the service's pace, fed at the sub-workflow's; removed with the execution (not saving successful " +
				'executions removes it at the end of the run) ([the spool](dataset.md#the-spool))',
		},
		{
			limit: 'File output, one file',
			value:
				`Max File Size (MB), default ${maxFileSize.default}, at least ${range(maxFileSize).minValue} (MB of ` +
				`${figure(MB)} bytes)`,
			does:
				'a larger selection comes in parts, one item each, every record whole in one part (a gzip part keeps ' +
				`${read('GZIP_HELD_BACK') / MB} MB free); a record larger than a part fails, naming it. Keep it under ` +
				'`N8N_BINARY_DATA_DATABASE_MAX_FILE_SIZE` in `database` mode; in `database`, `s3` and memory modes n8n ' +
				'holds the part it stores several times over: peak RSS 690 MB at 64 MB parts of a whole every-field ' +
				'snapshot, 1.6 GB at 256 MB ([files in parts](dataset.md#files-in-parts-max-file-size))',
		},
		{
			limit: "Compare's spool",
			value:
				"the newer snapshot's lines (name, compared and filter fields) in n8n's binary data storage, per run, in " +
				`files of ${spool} (smaller under a lower Max File Size of the File output, or under the limit of the ` +
				'`database` mode)',
			does:
				'the output pass replays it instead of asking for the newer snapshot again: one stream request per ' +
				'snapshot; removed with the execution. With binary data in memory nothing is spooled and the newer ' +
				'snapshot is read twice (a hint says so)',
		},
		{
			limit: 'Memory of the Sub-Workflow output',
			value:
				`ours: one batch of records as items and one ${spool} spool file; n8n's copies of each batch on top (it ` +
				"stores every sub-execution's input)",
			does:
				`keep Batch Size at its default ${figure(batchSize.default as number)}, the sub-workflow saving no ` +
				'successful execution, and a heap limit on n8n (`--max-old-space-size=512`): [memory per batch](dataset.md#memory-per-batch)',
		},
		...listLimits(read),
	];
}

function listLimits(read: Read): Limit[] {
	return [
		{
			limit: 'Filters → Domains (Stream, Compare)',
			value:
				"no cap on the number of names (1,000,000 tested); about 20 bytes plus the name's length each, at most 30 " +
				'plus the length (a million names of about 25 characters: 47 MB)',
			does:
				"only the listed names' lines are parsed; entries that are not a domain are left out and counted in a hint " +
				'and the summaries; a list with no domain at all fails before any request ([lists of domains](dataset.md#lists-of-domains))',
		},
		{
			limit: 'Enrich Items, Source Snapshot',
			value:
				'one stream read per snapshot the rows ask for (plus the dataset list for `latest`), no bulk call; memory: ' +
				'the distinct names, held as by the Domains filter, and their records (default fields)',
			does:
				"data as of the snapshot's date (each record carries its `label`); the read stops once every name is found, " +
				'else it reads the whole snapshot; a name it does not hold is `found: false`',
		},
		{
			limit: 'Binary data mode `default` (in memory)',
			value: 'no spool',
			does: 'batches straight from the stream, with a hint; a slow sub-workflow may cost extra stream requests',
		},
		{
			limit: 'Historical data (Dataset, Trigger)',
			value: 'plan feature',
			does: 'a plan without it gets a 403 that names the feature',
		},
		{
			limit: 'Sub-workflow calls followed to find a loop (Sub-Workflow output)',
			value: `${read('MAX_CALL_DEPTH')} levels of parent executions`,
			does: 'a target that is this workflow or one of its callers is refused before any request',
		},
		{
			limit: 'Search filters nested',
			value: `${read('MAX_FILTER_DEPTH')} levels`,
			does: 'deeper Filters (JSON) are refused before any call',
		},
	];
}

function triggerLimits(): Limit[] {
	const attached = parameter(new DomainDataTrigger().description.properties, {}, ['recordCount']);
	return [
		{
			limit: 'Records attached by the trigger',
			value:
				`Number of Records, default ${attached.default} (${range(attached).minValue} to ` +
				`${figure(range(attached).maxValue)})`,
			does: 'to read more, put Dataset → Stream after the trigger, on its `label`',
		},
		{
			limit: 'Labels the trigger remembers',
			value: `the ${SEEN_LIMIT} newest it has seen`,
			does: 'a snapshot withdrawn and listed again among them does not fire again',
		},
	];
}

function toolLimits(read: Read): Limit[] {
	return [
		{
			limit: 'Records per tool answer (AI Agent, MCP)',
			value: String(TOOL_MAX_RECORDS),
			does: 'whatever Return All, Limit or Output say; the answer says how many exist and how to narrow',
		},
		{
			limit: 'Bytes per tool answer',
			value: `${TOOL_MAX_BYTES / 1024} KB`,
			does: 'records made compact, then left out; the answer says how many were left out',
		},
		{
			limit: 'Paid calls per tool answer',
			value:
				`what ${TOOL_MAX_RECORDS} records need (Search: one page of ${TOOL_MAX_RECORDS}; Bulk Get and Enrich Items: ` +
				`the first ${TOOL_MAX_RECORDS} names in one call)`,
			does: 'decided before any call',
		},
		{
			limit: 'One text in a tool answer',
			value:
				`${figure(MAX_FULL_TEXT)} characters (${read('MAX_TEXT')} in compact records, whose lists keep ` +
				`${read('MAX_LIST')} entries); control, zero-width and bidirectional characters removed`,
			does: 'tool answers only: [website content is data](agents.md#website-content-is-marked-as-data)',
		},
	];
}

/** Every limit of the table, in its order. */
export function limitRows(read: Read = constantReader()): Limit[] {
	const node = new DomainData().description.properties;
	return [...requestLimits(read, node), ...datasetLimits(read, node), ...triggerLimits(), ...toolLimits(read)];
}

/** The limits table of docs/operations.md. */
export function limitsTable(): string {
	return [
		'| limit | value | what the node does |',
		'|---|---|---|',
		...limitRows().map((row) => `| ${row.limit} | ${row.value} | ${row.does} |`),
	].join('\n');
}
