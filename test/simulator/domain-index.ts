/**
 * The index: which domain sits at which position, for the live index and for every snapshot.
 *
 * Domain keys: the live domain at position p (rank p + 1) has key 2p. Snapshots move ranks inside
 * blocks of 32 positions and replace ~3% of the domains by key 2q + 1 (a domain absent from the live
 * index): "domains come and go". Both mappings are O(1) pure functions, so nothing is held in memory,
 * and name -> position is O(1) through the name codec.
 */
import { DomainGenerator, MAX_INDEX_SIZE } from './generator';
import { hash2, hash3 } from './random';
import type { Snapshot, SnapshotEdits } from './snapshots';
import { RECORD_FIELDS, type DomainObject, type DomainRecord, type RecordField } from './types';

const SHUFFLE_BLOCK = 32;
const CHURN_SALT = 0x43485552;
/** Domains (per mille) of a snapshot that differ from the live index at that spot. */
const CHURN_PER_MILLE = 30;

export class DomainIndex {
	readonly generator: DomainGenerator;

	constructor(
		readonly size: number,
		readonly seed: number,
	) {
		if (!Number.isInteger(size) || size < 1 || size > MAX_INDEX_SIZE) {
			throw new Error(`index size must be an integer from 1 to ${MAX_INDEX_SIZE}, got ${size}`);
		}
		this.generator = new DomainGenerator(seed);
	}

	/** Key of the live domain at `position` (0-based; rank = position + 1). */
	liveKey(position: number): number {
		return 2 * position;
	}

	/** Key of the domain at `position` of a snapshot (pass undefined for the live index). */
	keyAt(position: number, snapshot?: Snapshot): number {
		if (!snapshot) return 2 * position;
		const blockStart = position - (position % SHUFFLE_BLOCK);
		let source = position;
		if (blockStart + SHUFFLE_BLOCK <= this.size) {
			// An affine map with an odd multiplier is a bijection on 0..31: ranks move inside the block.
			const h = hash2(snapshot.salt, blockStart);
			const multiplier = (h & 31) | 1;
			source = blockStart + (((position - blockStart) * multiplier + (h >>> 5)) & (SHUFFLE_BLOCK - 1));
		}
		return 2 * source + (this.replacedAt(source, snapshot) ? 1 : 0);
	}

	/** True when the snapshot holds the non-live domain (key 2q + 1) for source position q. */
	private replacedAt(source: number, snapshot: Snapshot): boolean {
		const churned = hash3(snapshot.salt, source, CHURN_SALT) % 1000 < CHURN_PER_MILLE;
		return snapshot.dropped?.has(source) ? !churned : churned;
	}

	/**
	 * Applies chosen changes to a snapshot that is being added (see SnapshotEdits). Throws, naming the
	 * domain, when a name is not in the snapshot or a field cannot be set.
	 */
	applyEdits(snapshot: Snapshot, edits: SnapshotEdits): void {
		const keyInSnapshot = (name: string): number => {
			const key = typeof name === 'string' ? this.generator.names.keyOf(name) : undefined;
			const source = key === undefined ? -1 : Math.floor(key / 2);
			if (
				key === undefined ||
				source >= this.size ||
				2 * source + (this.replacedAt(source, snapshot) ? 1 : 0) !== key
			) {
				throw new Error(`snapshot ${snapshot.label} has no domain ${JSON.stringify(name)}`);
			}
			return key;
		};
		const dropped = new Set<number>();
		for (const name of edits.drop ?? []) dropped.add(Math.floor(keyInSnapshot(name) / 2));
		const overrides = new Map<number, Partial<DomainRecord>>();
		for (const [name, values] of Object.entries(edits.records ?? {})) {
			const key = keyInSnapshot(name);
			if (dropped.has(Math.floor(key / 2))) throw new Error(`domain ${name} is both dropped and edited`);
			for (const field of Object.keys(values ?? {})) {
				if (!(RECORD_FIELDS as readonly string[]).includes(field) || field === 'name' || field === 'rank') {
					throw new Error(`cannot set field ${JSON.stringify(field)} of ${name}: any record field but name and rank`);
				}
			}
			overrides.set(key, { ...values });
		}
		if (dropped.size > 0) snapshot.dropped = dropped;
		if (overrides.size > 0) snapshot.overrides = overrides;
	}

	/** The stream line of an edited domain, or undefined when the domain at `key` is not edited. */
	editedLine(
		snapshot: Snapshot | undefined,
		key: number,
		rank: number,
		fields: readonly RecordField[],
	): string | undefined {
		const values = snapshot?.overrides?.get(key);
		if (!values) return undefined;
		const record = { ...this.generator.record(key, rank, snapshot?.salt), ...values };
		const picked: Record<string, unknown> = {};
		for (const field of fields) picked[field] = record[field];
		return JSON.stringify(picked);
	}

	/** Live position of a name, or undefined when the name is not in the live index. O(1). */
	positionOf(name: string): number | undefined {
		const key = this.generator.names.keyOf(name);
		if (key === undefined || key % 2 !== 0) return undefined;
		const position = key / 2;
		return position < this.size ? position : undefined;
	}

	/** Live position of the domain whose registrable domain is `tld1`, if any. O(1). */
	positionOfTld1(tld1: string): number | undefined {
		const key = this.generator.names.keyOfRegistrable(tld1);
		if (key === undefined || key % 2 !== 0) return undefined;
		const position = key / 2;
		return position < this.size ? position : undefined;
	}

	/** Live domain object at a 1-based rank. */
	domainAt(rank: number): DomainObject {
		this.checkPosition(rank - 1);
		return this.generator.domainObject(this.liveKey(rank - 1), rank);
	}

	findByName(name: string): DomainObject | undefined {
		const position = this.positionOf(name);
		return position === undefined ? undefined : this.generator.domainObject(this.liveKey(position), position + 1);
	}

	/** Full record (every field) at a 0-based position of a snapshot, or of the live index. */
	recordAt(position: number, snapshot?: Snapshot): DomainRecord {
		this.checkPosition(position);
		const key = this.keyAt(position, snapshot);
		const record = this.generator.record(key, position + 1, snapshot?.salt);
		const values = snapshot?.overrides?.get(key);
		return values ? { ...record, ...values } : record;
	}

	private checkPosition(position: number): void {
		if (!Number.isInteger(position) || position < 0 || position >= this.size) {
			throw new RangeError(`position ${position} outside the index (size ${this.size})`);
		}
	}
}
