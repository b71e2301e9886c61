/**
 * The dated snapshots (datasets) of the index. A snapshot stores only its label, id and a salt; its
 * records are derived per position from the live index (see DomainIndex.keyAt): ranks move inside
 * blocks of 32, ~3% of the domains are replaced by domains that are not in the live index, and a few
 * percent of the others drift (technologies, title, categories, country and language: generator.ts
 * `driftOf`). Because the salt comes from (seed, label), the same label always yields the same data.
 * Tests can add chosen changes on top (`SnapshotEdits`, applied by DomainIndex.applyEdits).
 */
import { hash2, hash3, hashString } from './random';
import type { Dataset, DomainRecord } from './types';

/** Chosen changes of one snapshot, by domain name (the names must be in that snapshot). */
export interface SnapshotEdits {
	/** Domains left out of this snapshot: each one's place goes to a domain that is new to the index. */
	drop?: string[];
	/** Field values that replace the generated ones in this snapshot (any field but name and rank). */
	records?: Record<string, Partial<DomainRecord>>;
}

/** Newest default snapshot; older defaults are one week apart. Fixed so that runs are reproducible. */
export const DEFAULT_NEWEST_LABEL = '2025-06-30';
const DAY_MS = 86_400_000;
const LABEL_FORMAT = /^\d{4}-\d{2}-\d{2}$/;

export interface Snapshot extends Dataset {
	salt: number;
	/** Source positions whose domain is swapped for the other key (SnapshotEdits.drop). */
	dropped?: Set<number>;
	/** Replaced field values by domain key (SnapshotEdits.records). */
	overrides?: Map<number, Partial<DomainRecord>>;
}

export class SnapshotRegistry {
	/** Newest first. */
	private snapshots: Snapshot[] = [];

	constructor(
		private readonly seed: number,
		private readonly initialCount: number,
	) {
		this.reset();
	}

	/** Back to the initial snapshots (used by the simulator's reset). */
	reset(): void {
		this.snapshots = [];
		const newest = Date.parse(`${DEFAULT_NEWEST_LABEL}T00:00:00Z`);
		for (let i = this.initialCount - 1; i >= 0; i--) this.add(formatDate(newest - i * 7 * DAY_MS));
	}

	datasets(): Dataset[] {
		return this.snapshots.map(({ label, value }) => ({ label, value }));
	}

	newest(): Snapshot | undefined {
		return this.snapshots[0];
	}

	/**
	 * Adds a snapshot; the default label is one week after the newest (or the default newest date).
	 * `prepare` may fill in the snapshot's edits; if it throws, the snapshot is not added.
	 */
	add(label?: string, prepare?: (snapshot: Snapshot) => void): Dataset {
		const chosen = label ?? this.nextLabel();
		if (!LABEL_FORMAT.test(chosen) || formatDate(Date.parse(`${chosen}T00:00:00Z`)) !== chosen) {
			throw new Error(`snapshot label must be a date YYYY-MM-DD, got "${chosen}"`);
		}
		if (this.snapshots.some((s) => s.label === chosen)) throw new Error(`snapshot ${chosen} already exists`);
		const salt = hash2(this.seed, hashString(chosen));
		const value = snapshotId(this.seed, chosen);
		const snapshot: Snapshot = { label: chosen, value, salt };
		prepare?.(snapshot);
		this.snapshots.push(snapshot);
		this.snapshots.sort((a, b) => (a.label < b.label ? 1 : a.label > b.label ? -1 : 0));
		return { label: chosen, value };
	}

	remove(label: string): void {
		const before = this.snapshots.length;
		this.snapshots = this.snapshots.filter((s) => s.label !== label && s.value !== label);
		if (this.snapshots.length === before) throw new Error(`no snapshot ${label}`);
	}

	/** "latest", a date label or a snapshot id (value) -> snapshot. */
	resolve(labelOrValue: string): Snapshot | undefined {
		if (labelOrValue === 'latest') return this.snapshots[0];
		return this.snapshots.find((s) => s.label === labelOrValue || s.value === labelOrValue);
	}

	private nextLabel(): string {
		const newest = this.snapshots[0];
		if (!newest) return DEFAULT_NEWEST_LABEL;
		return formatDate(Date.parse(`${newest.label}T00:00:00Z`) + 7 * DAY_MS);
	}
}

function formatDate(ms: number): string {
	return Number.isNaN(ms) ? '' : new Date(ms).toISOString().slice(0, 10);
}

/** Opaque snapshot id, e.g. "snap_5f0c2e9ab41d7736": deterministic per (seed, label). */
function snapshotId(seed: number, label: string): string {
	const h = hashString(label);
	const hex = (n: number) => n.toString(16).padStart(8, '0');
	return `snap_${hex(hash3(seed, h, 1))}${hex(hash3(seed, h, 2))}`;
}
