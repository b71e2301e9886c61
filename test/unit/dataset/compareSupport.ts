/** What the Compare tests share: binary data in memory, and the stream requests per snapshot. */
import { Container } from '@n8n/di';
import * as core from 'n8n-core';

import { createExecuteContext } from '../../harness/n8n';
import type { Simulator } from '../../simulator';

/** Stream requests per label, from the simulator's request log. */
export function streamRequests(sim: Simulator): Record<string, number> {
	const counts: Record<string, number> = {};
	for (const call of sim.calls('stream')) {
		const label = decodeURIComponent(call.path.split('/').pop()!);
		counts[label] = (counts[label] ?? 0) + 1;
	}
	return counts;
}

/**
 * n8n-core's binary data kept in memory (mode `default`, as in an n8n started without N8N_DEFAULT_BINARY_DATA_MODE
 * before 2.0) for the tests of a file or a describe block: Compare then reads the newer snapshot a second time,
 * without a spool. The harness sets the service up in filesystem mode; this switches its mode and back.
 */
export function withBinaryDataInMemory(): void {
	let service: { mode: string } | undefined;
	let before = '';
	beforeAll(async () => {
		// Sets the service up (once per file) before its mode is changed.
		await createExecuteContext({ parameters: {}, credentials: { apiKey: 'unused', baseUrl: 'http://127.0.0.1:9' } });
		service = Container.get(core.BinaryDataService) as unknown as { mode: string };
		before = service.mode;
		service.mode = 'default';
	});
	afterAll(() => {
		if (service) service.mode = before;
	});
}
