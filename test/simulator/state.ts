/** Everything a running simulator holds (all of it small: the index itself is generated on demand). */
import type { KeyStore } from './auth';
import type { DomainIndex } from './domain-index';
import type { FaultState } from './faults';
import type { RequestLog } from './log';
import type { SearchEngine, SearchMode } from './search';
import type { SnapshotRegistry } from './snapshots';

export interface SimulatorState {
	seed: number;
	index: DomainIndex;
	snapshots: SnapshotRegistry;
	keys: KeyStore;
	faults: FaultState;
	log: RequestLog;
	search: SearchEngine;
	/** The filters search knows and what it does with others (changed by setSearchMode, back at reset). */
	searchMode: SearchMode;
	initialSearchMode: SearchMode;
}
