/**
 * 5. Trigger: service calls per poll over many polls, with and without a new snapshot before each poll,
 * through the harness's runPoll (n8n-core's real PollContext; static data kept between polls as n8n does).
 */
import type { IDataObject } from 'n8n-workflow';

import { KEYS } from '../test/simulator';
import { DEFAULT_NEWEST_LABEL } from '../test/simulator/snapshots';
import { runPoll } from '../test/harness/n8n';
import { markdownTable, type BenchContext, type Figure, type SectionResult } from './lib/report';

interface Series {
	calls: number[];
	emitted: number[];
	errors: string[];
}

export async function trigger(context: BenchContext): Promise<SectionResult> {
	const polls = context.tiny ? 2 : 100;
	const sim = await context.simulators.start({ domains: 1_000 });
	try {
		const credentials = { apiKey: KEYS.pro, baseUrl: sim.url };
		const series = async (newSnapshotEachPoll: boolean): Promise<Series> => {
			await sim.reset();
			const staticData: IDataObject = {};
			const result: Series = { calls: [], emitted: [], errors: [] };
			// The first poll after activation only learns what exists: it is not one of the measured polls.
			await runPoll({ parameters: {}, credentials, staticData });
			for (let poll = 0; poll < polls; poll++) {
				// A day apart from the simulator's newest, so that all of them lie in the past: the trigger waits
				// for labels dated in the future, which the simulator's weekly default would reach within the run.
				if (newSnapshotEachPoll) await sim.addSnapshot(daysAfter(DEFAULT_NEWEST_LABEL, poll + 1));
				await sim.clearLog();
				try {
					const output = await runPoll({ parameters: {}, credentials, staticData });
					result.emitted.push(output?.[0]?.length ?? 0);
				} catch (error) {
					result.errors.push(error instanceof Error ? error.message : String(error));
					result.emitted.push(0);
				}
				result.calls.push((await sim.calls()).length);
			}
			return result;
		};
		const quiet = await series(false);
		const busy = await series(true);
		context.log(`trigger: ${polls} polls without and with new snapshots`);

		const pending: string[] = [];
		const all = [...quiet.calls, ...busy.calls];
		if (all.every((calls) => calls === 0)) {
			pending.push("the trigger's poll() makes no call yet (still a stub): calls per poll not measured");
		}
		const describe = (name: string, s: Series): Figure => {
			const max = Math.max(...s.calls);
			const mean = s.calls.reduce((a, b) => a + b, 0) / s.calls.length;
			return {
				what: `calls per poll, ${name}`,
				value: `mean ${mean.toFixed(2)}, max ${max} (${s.calls.length} polls)`,
				target: '1',
				met: pending.length ? undefined : s.calls.every((calls) => calls === 1),
			};
		};
		const figures = [describe('no new snapshot', quiet), describe('a new snapshot before each poll', busy)];
		const histogram = (values: number[]) => {
			const counts = new Map<number, number>();
			for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
			return [...counts.entries()]
				.sort((a, b) => a[0] - b[0])
				.map(([value, count]) => `${value}: ${count}×`)
				.join(', ');
		};
		const details = [
			`${polls} polls in \`trigger\` mode after one first poll (activation), static data kept between polls; calls counted ` +
				"from the simulator's request log (every endpoint) between the start and the end of each poll.",
			markdownTable(
				['series', 'calls per poll (value: polls)', 'items emitted per poll (value: polls)', 'errors'],
				[
					['no new snapshot', histogram(quiet.calls), histogram(quiet.emitted), String(quiet.errors.length)],
					[
						'a new snapshot before each poll',
						histogram(busy.calls),
						histogram(busy.emitted),
						String(busy.errors.length),
					],
				],
			),
			...[...new Set([...quiet.errors, ...busy.errors])].slice(0, 3).map((error) => `Error seen: ${error}`),
		];
		return { id: 'trigger', title: 'Trigger', figures, details, pending };
	} finally {
		await sim.close();
	}
}

/** The calendar date `days` after `label` (YYYY-MM-DD). */
function daysAfter(label: string, days: number): string {
	return new Date(Date.parse(`${label}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}
