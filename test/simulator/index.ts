/**
 * The Domain Data Service simulator: a real HTTP server implementing every endpoint of
 * docs/service-interface.md (the interface in the project's own words) under /json/api/v1, on a
 * deterministic generated index.
 * See README.md in this folder for behaviour, faults and control endpoints.
 *
 *   const sim = await startSimulator({ domains: 1000 });
 *   fetch(`${sim.url}/json/api/v1/domain/${sim.index.domainAt(1).name}`, { headers: { authorization: `Bearer ${KEYS.pro}` } });
 *   await sim.close();
 */
import { KeyStore, type PlanName } from './auth';
import { DomainIndex } from './domain-index';
import { FaultState, type Faults } from './faults';
import { RequestLog, type RequestLogEntry } from './log';
import { lineBuilder, parseFields } from './record-lines';
import { resetState, stats } from './routes/control';
import { DEFAULT_SEARCH_MODE, SearchEngine, type SearchMode } from './search';
import { listen } from './server';
import { SnapshotRegistry, type SnapshotEdits } from './snapshots';
import type { SimulatorState } from './state';
import type { Dataset, DomainObject, DomainRecord } from './types';

export { KEYS, PLANS } from './auth';
export type { PlanName } from './auth';
export type { Faults, RequestFault, StreamFault, FaultScope } from './faults';
export type { RequestLogEntry } from './log';
export type { SnapshotEdits } from './snapshots';
export type { Dataset, DomainObject, DomainRecord, RecordField, EndpointName } from './types';
export { RECORD_FIELDS, DEFAULT_RECORD_FIELDS, FIELD_ALIASES } from './types';
export { DEFAULT_PAGE_SIZE, SEARCH_FILTER_KEYS } from './search';
export type { SearchMode } from './search';
export { MAX_BULK_DOMAINS } from './routes/domain';
export { API_PREFIX } from './routes/api';

/** Seed used when none is given: the same data on every run. */
export const DEFAULT_SEED = 20250630;

export interface SimulatorOptions {
	/** 0 = a random free port (default). */
	port?: number;
	/** Default 127.0.0.1. */
	host?: string;
	/** Number of domains in the index, 1 to 20,000,000 (default 1000). */
	domains?: number;
	seed?: number;
	/** Number of initial dated snapshots, one week apart (default 4). */
	snapshots?: number;
	/** Delay before every API response, in ms (default 0). */
	latencyMs?: number;
	/** Cap on each stream's bytes per second, a service's link (default 0: none; link.ts). */
	linkBytesPerSecond?: number;
	/** The filters search knows and what it does with others (default: all five, others rejected). */
	searchMode?: Partial<SearchMode>;
}

export interface SimulatorIndex {
	size: number;
	seed: number;
	/**
	 * Full record (all fields) at a 0-based position of a snapshot: a date label, a snapshot id or
	 * "latest" (the default). Pass "live" for the live index (the data of lookup/search/bulk).
	 */
	recordAt(position: number, snapshotLabel?: string): DomainRecord;
	/**
	 * The exact NDJSON line (without line ending) the stream sends for that position, snapshot (default
	 * "latest") and `fields` query value (default selection when omitted).
	 */
	lineAt(position: number, snapshotLabel?: string, fields?: string): string;
	/** Live domain object at a 1-based rank. */
	domainAt(rank: number): DomainObject;
	/** Live domain object by name (case-insensitive), undefined when not indexed. */
	findByName(name: string): DomainObject | undefined;
}

export interface Simulator {
	/** Base URL without /json/api/v1, e.g. http://127.0.0.1:PORT. */
	url: string;
	port: number;
	index: SimulatorIndex;
	/** Datasets, newest first. */
	datasets(): Dataset[];
	/**
	 * Adds a snapshot; default label: one week after the newest. `edits` publishes it with chosen changes
	 * (domains dropped, field values replaced; see SnapshotEdits).
	 */
	addSnapshot(label?: string, edits?: SnapshotEdits): Dataset;
	/** Removes a snapshot by label (or id). */
	removeSnapshot(label: string): void;
	/** Replaces the given parts of the faults (see faults.ts). */
	setFaults(faults: Partial<Faults>): void;
	resetFaults(): void;
	/** Current faults (counts left). */
	faults(): Faults;
	/**
	 * Changes the filters search knows and what it does with a key it does not know, e.g.
	 * `{ filters: ['maxRank'], unknownFilters: 'ignore' }`: a service that takes only maxRank and ignores the others.
	 */
	setSearchMode(mode: Partial<SearchMode>): void;
	/** Adds or changes a key; credits undefined = unlimited. */
	setKey(key: string, plan: PlanName, credits?: number): void;
	/** Credits left for a key: a number, null for unlimited, undefined for an unknown key. */
	credits(key: string): number | null | undefined;
	/** Request log (the same array for the simulator's life; clearLog empties it in place). */
	log: RequestLogEntry[];
	calls(endpoint?: string): RequestLogEntry[];
	clearLog(): void;
	/** Faults, log, keys and snapshots back to the start state. */
	reset(): void;
	/** Process statistics (memory, pid). */
	stats(): Record<string, unknown>;
	/** Stops the server and destroys open connections. */
	close(): Promise<void>;
}

export async function startSimulator(options: SimulatorOptions = {}): Promise<Simulator> {
	const seed = options.seed ?? DEFAULT_SEED;
	const index = new DomainIndex(options.domains ?? 1000, seed);
	const snapshotCount = options.snapshots ?? 4;
	if (!Number.isInteger(snapshotCount) || snapshotCount < 0)
		throw new Error('snapshots must be a non-negative integer');
	const state: SimulatorState = {
		seed,
		index,
		snapshots: new SnapshotRegistry(seed, snapshotCount),
		keys: new KeyStore(),
		faults: new FaultState(options.latencyMs ?? 0, options.linkBytesPerSecond ?? 0),
		log: new RequestLog(),
		search: new SearchEngine(index),
		searchMode: { ...DEFAULT_SEARCH_MODE, ...options.searchMode },
		initialSearchMode: { ...DEFAULT_SEARCH_MODE, ...options.searchMode },
	};
	const host = options.host ?? '127.0.0.1';
	const running = await listen(state, host, options.port ?? 0);

	const snapshotFor = (label = 'latest') => {
		if (label === 'live' || (label === 'latest' && !state.snapshots.newest())) return undefined;
		const snapshot = state.snapshots.resolve(label);
		if (!snapshot) throw new Error(`no snapshot ${label}`);
		return snapshot;
	};

	return {
		url: `http://${host.includes(':') ? `[${host}]` : host}:${running.port}`,
		port: running.port,
		index: {
			size: index.size,
			seed,
			recordAt: (position, label) => index.recordAt(position, snapshotFor(label)),
			lineAt: (position, label, fields) => {
				const selection = parseFields(fields);
				if (!selection.ok) throw new Error(selection.message);
				const snapshot = snapshotFor(label);
				const key = index.keyAt(position, snapshot);
				return (
					index.editedLine(snapshot, key, position + 1, selection.fields) ??
					lineBuilder(index.generator, selection.fields)(key, position + 1, snapshot?.salt)
				);
			},
			domainAt: (rank) => index.domainAt(rank),
			findByName: (name) => index.findByName(name),
		},
		datasets: () => state.snapshots.datasets(),
		addSnapshot: (label, edits) =>
			state.snapshots.add(label, edits && ((snapshot) => index.applyEdits(snapshot, edits))),
		removeSnapshot: (label) => state.snapshots.remove(label),
		setFaults: (faults) => state.faults.set(faults),
		resetFaults: () => state.faults.reset(),
		faults: () => state.faults.snapshot(),
		setSearchMode: (mode) => (state.searchMode = { ...state.searchMode, ...mode }),
		setKey: (key, plan, credits) => state.keys.set(key, plan, credits),
		credits: (key) => {
			const found = state.keys.get(key);
			if (!found) return undefined;
			return Number.isFinite(found.credits) ? found.credits : null;
		},
		log: state.log.entries,
		calls: (endpoint) => state.log.calls(endpoint),
		clearLog: () => state.log.clear(),
		reset: () => resetState(state),
		stats: () => stats(state),
		close: () => running.close(),
	};
}
