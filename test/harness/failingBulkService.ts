/**
 * The probe of Bulk Get and Enrich Items: names site0.com … site499.com (5 calls of 100), and a
 * bulk service that fails the third call every time (with Retry-After 1 s, after 150 ms) while the other
 * calls take 400 ms to answer, so that a client without a hold would start the fifth call during the
 * third one's retries.
 */
import { startLocalService, type LocalRequest, type LocalService } from './localService';

export const SITE_NAMES = Array.from({ length: 500 }, (_, i) => `site${i}.com`);

/** The answer a found site gets: its rank is its number + 1. */
export const siteDomain = (name: string) => ({ name, rank: Number(/^site(\d+)\.com$/.exec(name)?.[1]) + 1 });

/** `c1` … `c5`: the call a request is, by its first name. */
export function callOf(request: LocalRequest): string {
	const first = (request.body as { domains: string[] }).domains[0];
	return `c${Math.floor((siteDomain(first).rank - 1) / 100) + 1}`;
}

/** The error of the third call after Max Attempts 3. */
export const THIRD_CALL_ERROR = 'The Domain Data service failed with 503 Service Unavailable after 3 tries';

export interface FailingBulkService extends LocalService {
	/** What the third call answers (default 503 "overloaded"). */
	failure: { status: number; body: unknown };
	/** The calls that started after the third call's first failed answer, other than its own retries. */
	startedAfterFirstFailure(): string[];
	/** The calls made, sorted: ['c1', 'c2', 'c3', 'c3', …]. */
	callsMade(): string[];
	/** What a run without continue-on-fail must show: the third call's error, and no call after its first failure. */
	expectStoppedAtThirdCall(error: Error | undefined): void;
	clear(): void;
}

export async function startFailingBulkService(): Promise<FailingBulkService> {
	const failure = { status: 503, body: { error: 'overloaded' } as unknown };
	const service = await startLocalService((request) => {
		const asked = (request.body as { domains: string[] }).domains;
		if (callOf(request) === 'c3') return { ...failure, headers: { 'retry-after': '1' }, delayMs: 150 };
		return { delayMs: 400, body: { domains: asked.map(siteDomain) } };
	}, callOf);
	return Object.assign(service, {
		failure,
		startedAfterFirstFailure() {
			const failedAt = service.events.findIndex((event) => event.startsWith('answer c3 '));
			if (failedAt < 0) throw new Error('The third call never failed');
			return service.events.slice(failedAt).filter((event) => event.startsWith('request ') && event !== 'request c3');
		},
		callsMade() {
			return service.requests.map(callOf).sort();
		},
		expectStoppedAtThirdCall(error: Error | undefined) {
			expect(error?.message).toBe(THIRD_CALL_ERROR);
			expect(this.startedAfterFirstFailure()).toEqual([]);
			expect(this.callsMade()).toEqual(['c1', 'c2', 'c3', 'c3', 'c3', 'c4']);
		},
		clear() {
			service.requests.length = 0;
			service.events.length = 0;
			failure.status = 503;
			failure.body = { error: 'overloaded' };
		},
	});
}

/** Starts the service for the enclosing describe block (cleared before each test); read it through the getter. */
export function useFailingBulkService(): () => FailingBulkService {
	let service: FailingBulkService | undefined;
	beforeAll(async () => {
		service = await startFailingBulkService();
	});
	afterAll(async () => {
		await service?.close();
	});
	beforeEach(() => service?.clear());
	return () => {
		if (!service) throw new Error('The failing bulk service has not started');
		return service;
	};
}
