/**
 * The simulator's link speed (link.ts): a token bucket on the stream's writes. The pace is checked on a clock the
 * test drives (exact, no timing), then over real HTTP as byte counts and the wait the simulator reports, with one
 * generous lower bound on the time (a capped stream can only be slower on a busy machine, never faster).
 */
import { request } from 'undici';

import { useSimulator } from '../../harness/simulator';
import { KEYS } from '../../simulator';
import { burstBytesFor, type LinkClock, LinkPacer } from '../../simulator/link';

const API = '/json/api/v1';
const AUTH = { authorization: `Bearer ${KEYS.pro}` };
const sim = useSimulator({ domains: 2000 });

/** A clock that moves only when the pacer sleeps, or when the test says time passed (the link was idle). */
function testClock(): LinkClock & { advance(ms: number): void; sleeps: number[] } {
	let now = 0;
	const sleeps: number[] = [];
	return {
		now: () => now,
		sleep: async (ms) => {
			sleeps.push(ms);
			now += ms;
		},
		advance: (ms) => (now += ms),
		sleeps,
	};
}

describe('the link pacer', () => {
	test('a stream of many writes takes (bytes − burst) / rate: the rate holds in every window', async () => {
		const clock = testClock();
		const pacer = new LinkPacer(100_000, clock, 10_000);
		const ends: number[] = [];
		for (let write = 0; write < 100; write++) {
			await pacer.take(10_000);
			ends.push(clock.now());
		}
		expect(pacer.bytes).toBe(1_000_000);
		// The first write fits the burst; every later one waits its own bytes' time.
		expect(clock.now()).toBeCloseTo(((1_000_000 - 10_000) / 100_000) * 1000, 6);
		expect(pacer.waitedMs).toBeCloseTo(clock.now(), 6);
		// Any ten consecutive writes (100,000 bytes) span one second of the link.
		for (let at = 10; at < ends.length; at++) expect(ends[at] - ends[at - 10]).toBeCloseTo(1000, 6);
	});

	test('an idle link refills up to the burst only: no debt is forgiven, no unbounded credit builds up', async () => {
		const clock = testClock();
		const pacer = new LinkPacer(1_000, clock, 500);
		await pacer.take(500);
		expect(clock.sleeps).toEqual([]);
		clock.advance(60_000); // a minute idle: at most the burst comes back
		await pacer.take(1_500);
		expect(clock.sleeps).toEqual([1000]);
		await pacer.take(250);
		expect(clock.sleeps[1]).toBeCloseTo(250, 6);
	});

	test('the burst is a twentieth of a second, at least 64 KB', () => {
		expect(burstBytesFor(50_000_000)).toBe(2_500_000);
		expect(burstBytesFor(100_000)).toBe(64 * 1024);
	});
});

describe('the simulator under a link speed', () => {
	const fields = 'name,rank,title,meta_description,technologies,categories';

	async function readAll(): Promise<{ bytes: number; ms: number }> {
		const started = performance.now();
		const response = await request(`${sim.url}${API}/historical/domain/latest?fields=${fields}`, { headers: AUTH });
		let bytes = 0;
		for await (const chunk of response.body as AsyncIterable<Buffer>) bytes += chunk.length;
		return { bytes, ms: performance.now() - started };
	}

	test('a stream sends the same bytes, paced: the log reports the wait, the time is at least bytes / rate', async () => {
		const free = await readAll();
		expect(sim.calls('stream')[0].linkWaitMs).toBeUndefined();
		// A fifth of the speed the simulator just reached uncapped: the link, not the machine, sets the pace.
		const rate = Math.round((free.bytes / Math.max(free.ms, 20)) * 200);
		sim.setFaults({ linkBytesPerSecond: rate });
		const capped = await readAll();
		expect(capped.bytes).toBe(free.bytes);
		const entry = sim.calls('stream')[1];
		expect(entry.lines).toBe(2000);
		expect(entry.linkWaitMs).toBeGreaterThan(0);
		// The bucket lets no more than the burst plus rate × time through, whatever the machine's load.
		const floorMs = ((free.bytes - burstBytesFor(rate)) / rate) * 1000;
		expect(capped.ms).toBeGreaterThanOrEqual(floorMs * 0.9);
		expect(capped.ms / free.ms).toBeGreaterThan(2);
	});

	test('set over /__sim/faults, refused when negative, back to none at reset', async () => {
		const control = `${sim.url}/__sim/faults`;
		const posted = await fetch(control, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ linkBytesPerSecond: 50_000_000 }),
		});
		expect(((await posted.json()) as { linkBytesPerSecond: number }).linkBytesPerSecond).toBe(50_000_000);
		expect(() => sim.setFaults({ linkBytesPerSecond: -1 })).toThrow(/linkBytesPerSecond/);
		sim.resetFaults();
		expect(sim.faults().linkBytesPerSecond).toBe(0);
	});
});
