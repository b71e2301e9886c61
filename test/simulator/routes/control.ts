/**
 * Control endpoints for tests and demos, under /__sim/ and without authentication:
 *   GET/POST/DELETE /__sim/faults           current faults / set (Partial<Faults>) / clear
 *   GET/POST        /__sim/snapshots        datasets / add one ({"label"?: "YYYY-MM-DD", "edits"?: SnapshotEdits})
 *   DELETE          /__sim/snapshots/<label>
 *   GET/DELETE      /__sim/log[?endpoint=]  request log / clear it
 *   GET/POST        /__sim/keys             keys with plan and credits / set one ({"key","plan","credits"?})
 *   POST            /__sim/reset            faults, log, keys and snapshots back to the start state
 *   GET             /__sim/stats            pid, memory usage (incl. VmRSS/VmHWM), index size and seed
 */
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { PlanName } from '../auth';
import type { Faults } from '../faults';
import { isPlainObject, parseJson, readBody, sendError, sendJson } from '../http-utils';
import type { Snapshot, SnapshotEdits } from '../snapshots';
import type { SimulatorState } from '../state';

export const CONTROL_PREFIX = '/__sim';

export function resetState(state: SimulatorState): void {
	state.faults.reset();
	state.log.clear();
	state.keys.reset();
	state.snapshots.reset();
	state.searchMode = state.initialSearchMode;
}

export async function handleControl(
	req: IncomingMessage,
	res: ServerResponse,
	state: SimulatorState,
	url: URL,
): Promise<void> {
	const raw = await readBody(req);
	let body: unknown;
	if (raw.ok && raw.text.length > 0) {
		const parsed = parseJson(raw.text);
		if (!parsed.ok) return sendError(res, 400, 'The control body is not valid JSON.');
		body = parsed.value;
	}
	const path = url.pathname.slice(CONTROL_PREFIX.length).replace(/\/+$/, '');
	const method = req.method ?? 'GET';
	try {
		switch (`${method} ${path.startsWith('/snapshots/') ? '/snapshots/*' : path}`) {
			case 'GET /faults':
				return sendJson(res, 200, state.faults.snapshot());
			case 'POST /faults':
				if (!isPlainObject(body))
					return sendError(res, 400, 'Send a JSON object with latencyMs, requests and/or streams.');
				state.faults.set(body as Partial<Faults>);
				return sendJson(res, 200, state.faults.snapshot());
			case 'DELETE /faults':
				state.faults.reset();
				return sendJson(res, 200, state.faults.snapshot());
			case 'GET /snapshots':
				return sendJson(res, 200, { datasets: state.snapshots.datasets() });
			case 'POST /snapshots': {
				const label = isPlainObject(body) ? body.label : undefined;
				if (label !== undefined && typeof label !== 'string')
					return sendError(res, 400, 'label must be a string YYYY-MM-DD.');
				const edits = isPlainObject(body) ? body.edits : undefined;
				if (edits !== undefined && !isPlainObject(edits))
					return sendError(res, 400, 'edits must be an object {"drop"?: [names], "records"?: {name: {field: value}}}.');
				const prepare = edits && ((snapshot: Snapshot) => state.index.applyEdits(snapshot, edits as SnapshotEdits));
				return sendJson(res, 201, state.snapshots.add(label, prepare));
			}
			case 'DELETE /snapshots/*':
				state.snapshots.remove(decodeURIComponent(path.slice('/snapshots/'.length)));
				return sendJson(res, 200, { datasets: state.snapshots.datasets() });
			case 'GET /log': {
				const endpoint = url.searchParams.get('endpoint') ?? undefined;
				return sendJson(res, 200, { entries: state.log.calls(endpoint) });
			}
			case 'DELETE /log':
				state.log.clear();
				return sendJson(res, 200, { entries: [] });
			case 'GET /keys':
				return sendJson(res, 200, { keys: state.keys.list() });
			case 'POST /keys': {
				if (!isPlainObject(body) || typeof body.key !== 'string')
					return sendError(res, 400, 'Send {"key": "...", "plan": "basic"|"pro", "credits"?: n}.');
				const credits = body.credits === undefined || body.credits === null ? undefined : (body.credits as number);
				state.keys.set(body.key, body.plan as PlanName, credits);
				return sendJson(res, 200, { keys: state.keys.list() });
			}
			case 'POST /reset':
				resetState(state);
				return sendJson(res, 200, { ok: true });
			case 'GET /stats':
				return sendJson(res, 200, stats(state));
			default:
				return sendError(res, 404, `Unknown control endpoint: ${method} ${url.pathname}`);
		}
	} catch (error) {
		sendError(res, 400, error instanceof Error ? error.message : String(error));
	}
}

/** Process statistics; VmRSS/VmHWM (kB) come from /proc on Linux, so a parent can measure peak memory. */
export function stats(state: SimulatorState): Record<string, unknown> {
	const result: Record<string, unknown> = {
		pid: process.pid,
		uptimeSeconds: process.uptime(),
		memory: process.memoryUsage(),
		index: { size: state.index.size, seed: state.seed },
	};
	try {
		const status = readFileSync('/proc/self/status', 'utf8');
		for (const field of ['VmRSS', 'VmHWM']) {
			const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
			if (match) result[`${field.charAt(0).toLowerCase()}${field.slice(1)}Kb`] = Number(match[1]);
		}
	} catch {
		// Not Linux: memoryUsage() is all there is.
	}
	return result;
}
