/**
 * The Domain Data Trigger with n8n's durable poll cursors on (n8n 2.36 and later): polls run as tasks of
 * n8n's scheduler, and the node's static data (our trigger's "datasets seen" state) is kept in the
 * `poller_state` table and committed in one transaction with the execution it starts. n8n turns it on only
 * with all three switches (it logs a warning and keeps the old path otherwise):
 * N8N_SCHEDULER_ENABLED, N8N_SCHEDULER_POLL_TRIGGERS_ENABLED and N8N_POLLER_DURABLE_CURSORS_ENABLED.
 *
 * What differs from the classic poller (server.test.ts), and what this file pins down:
 * - The activation's poll is a test poll whose state n8n does not commit when it starts nothing: our
 *   trigger's first-poll baseline is taken again, and kept, at the first scheduled poll.
 * - Deactivating and activating again, or restarting n8n, does not poll: the scheduler's jobs outlive both.
 *   So this file polls on the real schedule and waits for it: four poll times, each once a minute at its own
 *   second, a poll every 15 s. n8n refuses a poll time that fires more often than once a minute (a seconds
 *   field other than one number: "The polling interval is too short"), not several poll times; the durable
 *   scheduler makes each a job of its own.
 * - The state survives a restart in the database: a snapshot published while n8n is down starts exactly one
 *   execution at the first poll after the restart.
 * Versions before 2.36 skip this file.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

import type { N8nInstance, N8nProcess } from '../../scripts/n8n/instance';
import type { N8nRestClient } from '../../scripts/n8n/rest';
import { chain, domainDataTrigger, noOp, workflow, workflowId } from '../../scripts/n8n/workflows';
import { startLocalServer } from '../harness/localServer';
import { startSimulator, type Simulator } from '../simulator';
import {
	createInstance,
	credentialImports,
	e2eVersion,
	N8N_CHANGES,
	n8nAtLeast,
	expectExecutions,
	expectNoOtherExecution,
	ownKeyCredential,
	pollsOf,
	startWithApi,
	waitForPolls,
	waitUntil,
	type TriggerItem,
} from './support';

const DURABLE_CURSORS_ENV = {
	N8N_SCHEDULER_ENABLED: 'true',
	N8N_SCHEDULER_POLL_TRIGGERS_ENABLED: 'true',
	N8N_POLLER_DURABLE_CURSORS_ENABLED: 'true',
	// Due polls are claimed every second, and one overdue by more than 5 s (n8n was down) is dropped: with poll
	// times 15 s apart, at most one overdue poll runs after a restart, never two at once (each would read the
	// same cursor and fire).
	N8N_SCHEDULER_EXECUTOR_INTERVAL: '1',
	N8N_SCHEDULER_MISFIRE_GRACE: '5',
};
const POLL_SECONDS = [0, 15, 30, 45];
const POLL_EVERY_15_S = {
	item: POLL_SECONDS.map((second) => ({ mode: 'custom', cronExpression: `${second} * * * * *` })),
};
/** A scheduled poll comes within 15 s; the bound allows for three poll times. */
const NEXT_POLL_MS = 45_000;
const TEST_TIMEOUT_MS = 3 * 60_000;
const TRIGGER = workflowId('durableTrigger');

const describeIfDurable = n8nAtLeast(N8N_CHANGES.durablePollCursors) ? describe : describe.skip;

/**
 * The trigger's way to the simulator (its credential's Base URL): passes the first request and holds the ones
 * after it until `open()`. A held poll is neither in the simulator's log nor answered, so it stores nothing
 * while the test reads `poller_state`, however slow the machine.
 */
async function startGate(target: string): Promise<{ url: string; open: () => void; close: () => Promise<void> }> {
	let passes = 1;
	let open = () => {};
	const opened = new Promise<void>((resolve) => (open = resolve));
	const server = await startLocalServer((req, res) => {
		void (passes-- > 0 ? Promise.resolve() : opened)
			.then(() => fetch(target + req.url, { headers: { authorization: String(req.headers.authorization ?? '') } }))
			.then(async (answer) => {
				res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
				res.end(await answer.text());
			})
			.catch(() => res.destroy());
	});
	return { url: server.url, open, close: () => server.close() };
}

describeIfDurable(`Domain Data Trigger with durable poll cursors (n8n ${e2eVersion()})`, () => {
	let sim: Simulator;
	let n8n: N8nInstance;
	let server: N8nProcess;
	let rest: N8nRestClient;
	let key: string;
	let triggerNodeId: string;
	let gate: Awaited<ReturnType<typeof startGate>>;

	/** The trigger's output of each execution the test expects so far, oldest first. */
	const runs: TriggerItem[][] = [];
	const polls = () => pollsOf(sim, key);
	const waitForPoll = (count: number) => waitForPolls(sim, key, count, NEXT_POLL_MS);
	// Each scheduled poll comes 15 s after the one before: a test that asserts the whole list of
	// executions after a poll also shows that the poll before it started nothing more.
	const expectRuns = () => expectExecutions(rest, TRIGGER, runs);

	async function startServer(): Promise<void> {
		({ server, rest } = await startWithApi(n8n));
	}

	/**
	 * The trigger's row of n8n's `poller_state` table, read with the Node n8n runs on (Node 22.5+ has
	 * `node:sqlite`; the Node running jest may be older).
	 */
	function storedCursor(): Record<string, unknown> | undefined {
		const script = `
			const { DatabaseSync } = require('node:sqlite');
			const db = new DatabaseSync(process.argv[1], { readOnly: true });
			const row = db.prepare('SELECT cursor FROM poller_state WHERE workflowId = ? AND nodeId = ?').get(process.argv[2], process.argv[3]);
			process.stdout.write(JSON.stringify(row ? JSON.parse(row.cursor) : null));`;
		const result = spawnSync(
			n8n.runtime.execPath,
			['--no-warnings', '-e', script, join(n8n.userFolder, '.n8n', 'database.sqlite'), TRIGGER, triggerNodeId],
			{ encoding: 'utf8' },
		);
		if (result.status !== 0) throw new Error(`reading poller_state failed: ${result.stderr}`);
		return JSON.parse(result.stdout) ?? undefined;
	}

	/** The stored cursor once a poll has committed a label (bounded): n8n commits it after the poll's answer. */
	async function committedCursor(): Promise<Record<string, unknown> | undefined> {
		await waitUntil(() => storedCursor()?.lastLabel !== undefined, 10_000);
		return storedCursor();
	}

	beforeAll(async () => {
		sim = await startSimulator({ domains: 500, snapshots: 3 });
		const own = ownKeyCredential(sim, 'durable');
		key = own.key;
		gate = await startGate(sim.url);
		n8n = await createInstance(sim, { credentials: false, env: DURABLE_CURSORS_ENV });
		await n8n.importCredentials([
			...credentialImports(sim),
			{ ...own.credential, data: { ...own.credential.data, baseUrl: gate.url } },
		]);
		const trigger = domainDataTrigger(
			'Domain Data Trigger',
			{ event: 'newDataset', pollTimes: POLL_EVERY_15_S },
			own.ref,
		);
		triggerNodeId = trigger.id;
		await n8n.importWorkflows([workflow(TRIGGER, 'New dataset (durable cursors)', chain(trigger, noOp('Received')))]);
		await startServer();
	}, 10 * 60_000);

	afterAll(async () => {
		await n8n?.dispose();
		await gate?.close();
		await sim?.close();
	});

	test('n8n runs the durable poller chain (no warning that it stays off)', () => {
		expect(server.output()).not.toMatch(/durable poll cursors stay disabled/);
	});

	test('activation polls once; n8n keeps no state from that test poll', async () => {
		try {
			await rest.activateWorkflow(TRIGGER);
			await waitForPoll(1);
			expect(storedCursor()).toEqual({});
		} finally {
			// The first scheduled poll may be held by now: it goes on.
			gate.open();
		}
	});

	test(
		'the first scheduled poll takes the baseline: the seen datasets stored in poller_state; the activation started nothing',
		async () => {
			await waitForPoll(2);
			await expectRuns();
			expect(await committedCursor()).toMatchObject({ lastLabel: sim.datasets()[0].label });
		},
		TEST_TIMEOUT_MS,
	);

	test(
		'a new snapshot: exactly one execution at the next poll, and the stored cursor moves to its label',
		async () => {
			const previous = sim.datasets()[0].label;
			const added = sim.addSnapshot();
			await waitForPoll(3);
			await rest.waitForExecutions(TRIGGER, 1);
			runs.push([{ label: added.label, value: added.value, previousLabel: previous }]);
			await expectRuns();
			expect(storedCursor()).toMatchObject({ lastLabel: added.label });
		},
		TEST_TIMEOUT_MS,
	);

	test(
		'a snapshot published while n8n is down starts exactly one execution after the restart',
		async () => {
			await server.stop();
			const before = sim.datasets()[0].label;
			const added = sim.addSnapshot();
			const pollsBefore = polls();
			await startServer();
			await waitForPoll(pollsBefore + 1);
			await rest.waitForExecutions(TRIGGER, 2);
			runs.push([{ label: added.label, value: added.value, previousLabel: before }]);
			await expectRuns();
			expect(storedCursor()).toMatchObject({ lastLabel: added.label });
		},
		TEST_TIMEOUT_MS,
	);

	test(
		'the next scheduled poll starts exactly the next execution: nothing else came after the restart',
		async () => {
			await expectNoOtherExecution({ sim, rest, workflowId: TRIGGER, runs, poll: () => waitForPoll(polls() + 1) });
		},
		TEST_TIMEOUT_MS,
	);
});
