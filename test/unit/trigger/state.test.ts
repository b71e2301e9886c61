/**
 * The trigger's memory rules as pure functions (the HTTP behaviour is proven in trigger.test.ts): which
 * labels are new, what is saved, and that a quiet poll has nothing to save.
 */
import type { IDataObject } from 'n8n-workflow';

import {
	SEEN_LIMIT,
	STATE_VERSION,
	loadState,
	loadStoredState,
	newestDataset,
	planPoll,
	stateAfter,
	storeState,
	type StateStore,
	type TriggerState,
} from '../../../nodes/DomainDataTrigger/pollState';

const ds = (...labels: string[]) => labels.map((label) => ({ label, value: `snap_${label}` }));
const state = (lastLabel: string | null, seen: string[]): TriggerState => ({
	version: STATE_VERSION,
	lastLabel,
	seen,
});
const labelsOf = (plan: ReturnType<typeof planPoll>) => plan.newDatasets.map((d) => d.label);

describe('planPoll', () => {
	test('no saved state: a baseline of the newest label and the listed labels, nothing emitted', () => {
		const plan = planPoll(undefined, ds('2025-06-30', '2025-06-23'));
		expect(plan.kind).toBe('baseline');
		expect(plan.newDatasets).toEqual([]);
		expect(plan.nextState).toEqual(state('2025-06-30', ['2025-06-30', '2025-06-23']));
	});

	test('a baseline on an empty list: every dated label that appears later is new', () => {
		const baseline = planPoll(undefined, []);
		expect(baseline.nextState).toEqual(state(null, []));
		const next = planPoll(baseline.nextState, ds('2025-07-07', '2025-06-30'));
		expect(labelsOf(next)).toEqual(['2025-06-30', '2025-07-07']);
		expect(next.newDatasets[0].previousLabel).toBeNull();
	});

	test('labels compare as dates, not by list position; new ones come oldest first with previousLabel', () => {
		// The list arrives in a shuffled order: position must not matter.
		const plan = planPoll(
			state('2025-06-30', ['2025-06-30', '2025-06-23']),
			ds('2025-07-07', '2025-06-23', '2025-07-14', '2025-06-30'),
		);
		expect(plan.kind).toBe('emit');
		expect(plan.newDatasets).toEqual([
			{ label: '2025-07-07', value: 'snap_2025-07-07', previousLabel: '2025-06-30' },
			{ label: '2025-07-14', value: 'snap_2025-07-14', previousLabel: '2025-07-07' },
		]);
		expect(plan.nextState).toEqual(state('2025-07-14', ['2025-07-14', '2025-07-07', '2025-06-30', '2025-06-23']));
	});

	test('nothing new: kind none and the very same state object (nothing to save)', () => {
		const saved = state('2025-06-30', ['2025-06-30', '2025-06-23']);
		const plan = planPoll(saved, ds('2025-06-30', '2025-06-23'));
		expect(plan.kind).toBe('none');
		expect(plan.nextState).toBe(saved);
	});

	test('a backfilled label older than the last one is not an event (and is remembered once something fires)', () => {
		const saved = state('2025-06-30', ['2025-06-30', '2025-06-16']);
		const quiet = planPoll(saved, ds('2025-06-30', '2025-06-23', '2025-06-16'));
		expect(quiet.kind).toBe('none');
		const next = planPoll(saved, ds('2025-07-07', '2025-06-30', '2025-06-23', '2025-06-16'));
		expect(labelsOf(next)).toEqual(['2025-07-07']);
		expect(next.nextState.seen).toContain('2025-06-23');
	});

	test('the newest label removed and listed again never fires twice', () => {
		const saved = state('2025-07-07', ['2025-07-07', '2025-06-30']);
		expect(planPoll(saved, ds('2025-06-30')).kind).toBe('none');
		expect(planPoll(saved, ds('2025-07-07', '2025-06-30')).kind).toBe('none');
	});

	test('a far-future label neither fires nor becomes the watermark; it counts once its date has come', () => {
		const now = new Date('2025-07-01T12:00:00Z');
		const saved = state('2025-06-30', ['2025-06-30']);
		const bogus = planPoll(saved, ds('2099-01-01', '2025-06-30'), now);
		expect(bogus.kind).toBe('none');
		expect(bogus.futureLabels).toEqual(['2099-01-01']);
		// tomorrow (UTC) is still accepted: a service in another time zone may be a day ahead
		expect(labelsOf(planPoll(saved, ds('2025-07-02', '2025-06-30'), now))).toEqual(['2025-07-02']);
		const real = planPoll(saved, ds('2099-01-01', '2025-07-07', '2025-06-30'), new Date('2025-07-07T08:00:00Z'));
		expect(real.newDatasets).toEqual([{ label: '2025-07-07', value: 'snap_2025-07-07', previousLabel: '2025-06-30' }]);
		expect(real.nextState).toEqual(state('2025-07-07', ['2025-07-07', '2025-06-30']));
		expect(
			labelsOf(planPoll(real.nextState, ds('2099-01-01', '2025-07-07'), new Date('2099-01-01T00:00:00Z'))),
		).toEqual(['2099-01-01']);
	});

	test('impossible dates (2025-13-45, 2025-02-29) are ignored: never emitted, never the watermark', () => {
		const saved = state('2025-06-30', ['2025-06-30']);
		const bogus = planPoll(saved, ds('2025-13-45', '2025-02-29', '2025-06-30'));
		expect(bogus.kind).toBe('none');
		expect(bogus.ignoredLabels).toEqual(['2025-13-45', '2025-02-29']);
		const real = planPoll(saved, ds('2025-13-45', '2025-07-07', '2025-06-30'));
		expect(real.newDatasets).toEqual([{ label: '2025-07-07', value: 'snap_2025-07-07', previousLabel: '2025-06-30' }]);
	});

	test('a backfill older than the newest label seen never fires, in every order of withdrawal, backfill and relisting', () => {
		// Seen: 07-07 (newest). Events: 07-07 withdrawn, a backfill 07-03 published, 07-07 listed again.
		const events: Record<string, (labels: Set<string>) => void> = {
			withdraw: (labels) => labels.delete('2025-07-07'),
			backfill: (labels) => labels.add('2025-07-03'),
			relist: (labels) => labels.add('2025-07-07'),
		};
		const orders = [
			['withdraw', 'backfill'],
			['backfill', 'withdraw'],
			['withdraw', 'backfill', 'relist'],
			['withdraw', 'relist', 'backfill'],
			['backfill', 'withdraw', 'relist'],
		];
		for (const order of orders) {
			let saved = state('2025-07-07', ['2025-07-07', '2025-06-30']);
			const listed = new Set(['2025-07-07', '2025-06-30']);
			for (const event of order) {
				events[event](listed);
				const plan = planPoll(saved, ds(...listed));
				expect({ order, event, emitted: labelsOf(plan) }).toEqual({ order, event, emitted: [] });
				saved = plan.nextState;
			}
			listed.add('2025-07-14');
			expect({ order, emitted: labelsOf(planPoll(saved, ds(...listed))) }).toEqual({ order, emitted: ['2025-07-14'] });
		}
	});

	test('an empty or entirely replaced list floods nothing out; the saved watermark stays', () => {
		const saved = state('2025-06-30', ['2025-06-30', '2025-06-23']);
		expect(planPoll(saved, []).kind).toBe('none');
		expect(planPoll(saved, ds('2025-05-01', '2025-04-01')).kind).toBe('none');
	});

	test('labels that are not dates are ignored and reported, never emitted nor saved', () => {
		const listed = [
			{ label: 'latest-full', value: 'snap_x' },
			{ label: '2025/07/07', value: 'snap_y' },
			{ label: '2025-07-07', value: 'snap_2025-07-07' },
			{ label: '2025-06-30', value: 'snap_2025-06-30' },
		];
		const baseline = planPoll(undefined, listed);
		expect(baseline.ignoredLabels).toEqual(['latest-full', '2025/07/07']);
		expect(baseline.nextState).toEqual(state('2025-07-07', ['2025-07-07', '2025-06-30']));
		const again = planPoll(baseline.nextState, listed);
		expect(again.kind).toBe('none');
		expect(again.ignoredLabels).toEqual(['latest-full', '2025/07/07']);
	});

	test('a label listed twice is one event (the first entry, as the list is newest first)', () => {
		const plan = planPoll(state('2025-06-30', ['2025-06-30']), [
			{ label: '2025-07-07', value: 'snap_a' },
			{ label: '2025-07-07', value: 'snap_b' },
			{ label: '2025-06-30', value: 'snap_c' },
		]);
		expect(plan.newDatasets).toEqual([{ label: '2025-07-07', value: 'snap_a', previousLabel: '2025-06-30' }]);
	});

	test(`the saved memory is bounded to ${SEEN_LIMIT} labels, the newest`, () => {
		const labels: string[] = [];
		for (let day = 0; day < 120; day++) {
			labels.push(new Date(Date.UTC(2025, 0, 1) + day * 86_400_000).toISOString().slice(0, 10));
		}
		const listed = ds(...labels.reverse());
		const baseline = planPoll(undefined, listed);
		expect(baseline.nextState.seen).toHaveLength(SEEN_LIMIT);
		expect(baseline.nextState.seen[0]).toBe(labels[0]);
		const next = planPoll(baseline.nextState, ds('2025-12-31', ...labels));
		expect(labelsOf(next)).toEqual(['2025-12-31']);
		expect(next.nextState.seen).toHaveLength(SEEN_LIMIT);
		expect(JSON.stringify(next.nextState).length).toBeLessThan(1000);
	});
});

describe('loadState / storeState', () => {
	const into = (node: IDataObject): StateStore => ({
		node,
		global: {},
		nodeId: 'id',
		nodeName: 'Trigger',
		service: '',
	});
	test('round-trips through JSON as n8n stores static data', () => {
		const staticData: IDataObject = {};
		storeState(into(staticData), state('2025-06-30', ['2025-06-30']));
		const restored = JSON.parse(JSON.stringify(staticData));
		expect(loadState(restored)).toEqual(state('2025-06-30', ['2025-06-30']));
	});

	test('a state saved with an impossible or a future newest label: the newest seen real date takes its place', () => {
		const now = new Date('2025-07-10T00:00:00Z');
		expect(
			loadState({ version: 1, lastLabel: '2025-13-45', seen: ['2025-13-45', '2025-07-07', '2025-06-30'] }, now),
		).toEqual(state('2025-07-07', ['2025-07-07', '2025-06-30']));
		const restored = loadState({ version: 1, lastLabel: '2099-01-01', seen: ['2099-01-01', '2025-06-30'] }, now);
		expect(restored).toEqual(state('2025-06-30', ['2025-06-30']));
		expect(labelsOf(planPoll(restored, ds('2025-07-07', '2025-06-30'), now))).toEqual(['2025-07-07']);
		expect(loadState({ version: 1, lastLabel: '2025-13-45', seen: ['2025-13-45'] }, now)).toBeUndefined();
	});

	test('absent, foreign or damaged state means "no state" (a new baseline), never a crash', () => {
		expect(loadState({})).toBeUndefined();
		expect(loadState({ version: 2, lastLabel: '2025-06-30', seen: [] })).toBeUndefined();
		expect(loadState({ version: 1, lastLabel: 'yesterday', seen: [] })).toBeUndefined();
		expect(loadState({ version: 1, lastLabel: '2025-06-30', seen: 'x' })).toBeUndefined();
		expect(loadState({ version: 1, lastLabel: '2025-06-30', seen: [3] })).toBeUndefined();
		expect(loadState({ version: 1, lastLabel: null, seen: [] })).toEqual(state(null, []));
	});

	test('storeState assigns a fresh array, so that the saved value is not shared with the plan', () => {
		const next = state('2025-06-30', ['2025-06-30']);
		const staticData: IDataObject = {};
		storeState(into(staticData), next);
		next.seen.push('2025-06-23');
		expect(staticData.seen).toEqual(['2025-06-30']);
	});
});

describe('loadStoredState / storeState (whose state it is)', () => {
	const SERVICE = 'https://api.domain-data.example';
	const store = (node: IDataObject, global: IDataObject, nodeName = 'Trigger A'): StateStore => ({
		node,
		global,
		nodeId: 'id-x',
		nodeName,
		service: SERVICE,
	});
	const older = state('2025-06-30', ['2025-06-30']);
	const later = state('2025-07-21', ['2025-07-21', '2025-06-30']);

	test('the node id and the service are saved with the state, in the node’s data and in the copy', () => {
		const node: IDataObject = {};
		const global: IDataObject = {};
		storeState(store(node, global), older);
		expect(node).toEqual({ ...older, nodeId: 'id-x', service: SERVICE });
		expect(global).toEqual({ 'domainDataTrigger:id-x': { ...node, nodeName: 'Trigger A' } });
		expect(loadStoredState(store(node, global))).toEqual(older);
	});

	test('the node’s data naming another node id or another service does not count', () => {
		expect(loadStoredState(store({ ...later, nodeId: 'id-y', service: SERVICE }, {}))).toBeUndefined();
		expect(loadStoredState(store({ ...later, nodeId: 'id-x', service: 'http://other.example' }, {}))).toBeUndefined();
		// Swapped names: the copy this node wrote under its former name counts, not the later state of the other node.
		const global = { 'domainDataTrigger:id-x': { ...older, nodeId: 'id-x', service: SERVICE, nodeName: 'Trigger B' } };
		expect(loadStoredState(store({ ...later, nodeId: 'id-y', service: SERVICE }, global))).toEqual(older);
	});

	test('a copy naming another service does not count, whatever its name', () => {
		const copy = { ...later, nodeId: 'id-x', service: 'http://other.example', nodeName: 'Trigger B' };
		const own = { ...older, nodeId: 'id-x', service: SERVICE };
		expect(loadStoredState(store(own, { 'domainDataTrigger:id-x': copy }))).toEqual(older);
		expect(loadStoredState(store({}, { 'domainDataTrigger:id-x': copy }))).toBeUndefined();
	});

	test('states that name no node id and no service (earlier versions of the package) count', () => {
		expect(loadStoredState(store({ ...older }, {}))).toEqual(older);
		const global = { 'domainDataTrigger:id-x': { ...later, nodeName: 'Trigger B' } };
		expect(loadStoredState(store({ ...older }, global))).toEqual(later);
	});

	test('under the copy’s name the node’s own state counts, even none; under another name the later of the two', () => {
		const copy = { ...later, nodeId: 'id-x', service: SERVICE, nodeName: 'Trigger A' };
		expect(loadStoredState(store({}, { 'domainDataTrigger:id-x': copy }))).toBeUndefined();
		const own = { ...older, nodeId: 'id-x', service: SERVICE };
		expect(loadStoredState(store(own, { 'domainDataTrigger:id-x': copy }))).toEqual(older);
		expect(loadStoredState(store(own, { 'domainDataTrigger:id-x': copy }, 'Trigger C'))).toEqual(later);
	});
});

describe('newestDataset (manual mode)', () => {
	test('the newest dated dataset and the one listed before it', () => {
		expect(newestDataset(ds('2025-06-23', '2025-06-30'))).toEqual({
			label: '2025-06-30',
			value: 'snap_2025-06-30',
			previousLabel: '2025-06-23',
		});
		expect(newestDataset(ds('2025-06-30'))?.previousLabel).toBeNull();
		expect(newestDataset([{ label: 'draft', value: 'x' }])).toBeUndefined();
		expect(newestDataset([])).toBeUndefined();
	});
});

describe('stateAfter (some of the events fired: a later read failed)', () => {
	test('the watermark at the last fired label; the labels after it are not seen, so they come again', () => {
		const saved = state('2025-06-30', ['2025-06-30', '2025-06-23']);
		const plan = planPoll(saved, ds('2025-07-21', '2025-07-14', '2025-07-07', '2025-06-30', '2025-06-23'));
		const after = stateAfter(plan, 1);
		expect(after).toEqual(state('2025-07-07', ['2025-07-07', '2025-06-30', '2025-06-23']));
		expect(labelsOf(planPoll(after, ds('2025-07-21', '2025-07-14', '2025-07-07', '2025-06-30')))).toEqual([
			'2025-07-14',
			'2025-07-21',
		]);
		expect(stateAfter(plan, 3)).toBe(plan.nextState);
	});
});
