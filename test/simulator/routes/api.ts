/**
 * The service's API under /json/api/v1: routing, then for every known route the same pipeline:
 * log -> injected faults (delay, reset, error status) -> authentication (401) -> plan feature (403) ->
 * credits (402, one credit spent per request that gets this far) -> body checks (400) -> handler.
 */
import { performance } from 'node:perf_hooks';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { PLANS } from '../auth';
import { defaultFaultMessage, type RequestFault } from '../faults';
import { delay, parseJson, readBody, sendError } from '../http-utils';
import type { SimulatorState } from '../state';
import type { EndpointName } from '../types';
import type { ApiContext } from './context';
import { bulkDomains, getDomain, searchDomains } from './domain';
import { listDatasets, streamDataset } from './historical';

export const API_PREFIX = '/json/api/v1';

type Handler = (context: ApiContext) => void | Promise<void>;

interface Route {
	endpoint: EndpointName;
	method: 'GET' | 'POST';
	handler: Handler;
	param?: string;
}

type Resolution = { route: Route } | { status: 404 | 405 | 400; message: string; allow?: string };

const PROXY_HTML: Record<number, string> = {
	500: '<html><body><h1>500 Internal Server Error</h1></body></html>',
	502: '<html><body><h1>502 Bad Gateway</h1></body></html>',
	503: '<html><body><h1>503 Service Temporarily Unavailable</h1></body></html>',
	504: '<html><body><h1>504 Gateway Time-out</h1></body></html>',
	429: '<html><body><h1>429 Too Many Requests</h1></body></html>',
};

function resolve(method: string, path: string): Resolution {
	const rest = path.slice(API_PREFIX.length);
	const segments = rest.split('/').slice(1);
	let param: string | undefined;
	const decode = (segment: string): string | undefined => {
		try {
			return decodeURIComponent(segment);
		} catch {
			return undefined;
		}
	};
	let route: Omit<Route, 'param'> | undefined;
	if (segments[0] === 'domain' && segments.length === 2) {
		if (segments[1] === 'search') route = { endpoint: 'search', method: 'POST', handler: searchDomains };
		else if (segments[1] === 'bulk') route = { endpoint: 'bulk', method: 'POST', handler: bulkDomains };
		else {
			route = { endpoint: 'get', method: 'GET', handler: getDomain };
			param = decode(segments[1]);
		}
	} else if (segments[0] === 'historical' && segments[1] === 'domain') {
		if (segments.length === 2 || (segments.length === 3 && segments[2] === '')) {
			route = { endpoint: 'datasets', method: 'GET', handler: listDatasets };
		} else if (segments.length === 3) {
			route = { endpoint: 'stream', method: 'GET', handler: streamDataset };
			param = decode(segments[2]);
		}
	}
	if (!route) return { status: 404, message: `Not found: ${method} ${path}` };
	if (param === undefined && (route.endpoint === 'get' || route.endpoint === 'stream')) {
		return { status: 400, message: 'The path parameter is not valid percent-encoding.' };
	}
	if (method !== route.method)
		return {
			status: 405,
			message: `Method ${method} not allowed on ${path}; use ${route.method}.`,
			allow: route.method,
		};
	return { route: { ...route, param } };
}

export async function handleApi(
	req: IncomingMessage,
	res: ServerResponse,
	state: SimulatorState,
	url: URL,
): Promise<void> {
	const time = performance.timeOrigin + performance.now();
	const resolution = resolve(req.method ?? 'GET', url.pathname);
	const raw = await readBody(req);
	const text = raw.ok ? raw.text : '';
	let body: unknown;
	let bodyIsJson = true;
	if (text.length > 0) {
		const parsed = parseJson(text);
		bodyIsJson = parsed.ok;
		body = parsed.ok ? parsed.value : text;
	}
	const authorization = req.headers.authorization;
	const entry = state.log.add({
		time,
		method: req.method ?? 'GET',
		path: url.pathname,
		query: Object.fromEntries(url.searchParams),
		endpoint: 'route' in resolution ? resolution.route.endpoint : 'unknown',
		headers: { ...req.headers },
		body,
		status: 0,
		key: authorization ? /^Bearer\s+(\S+)/i.exec(authorization)?.[1] : undefined,
	});
	try {
		if (!('route' in resolution)) {
			sendError(res, resolution.status, resolution.message, resolution.allow ? { allow: resolution.allow } : {});
			return;
		}
		const { route } = resolution;
		const fault = state.faults.takeRequestFault(route.endpoint, url.pathname);
		await delay(state.faults.latencyMs + (fault?.delayMs ?? 0));
		if (fault && applyFault(fault, req, res)) {
			entry.fault = fault.reset ? 'reset' : `status:${fault.status}`;
			return;
		}
		if (fault) entry.fault = 'delay';

		const auth = state.keys.authenticate(authorization);
		if (!auth.ok) return sendError(res, auth.status, auth.message);
		const key = auth.state;
		if ((route.endpoint === 'datasets' || route.endpoint === 'stream') && !PLANS[key.plan].historical) {
			return sendError(
				res,
				403,
				`Your plan (${key.plan}) does not include the historical data feature required by ${url.pathname}.`,
			);
		}
		if (key.credits <= 0) return sendError(res, 402, 'The request credits of this API key are used up for this month.');
		key.credits -= 1;
		key.spent += 1;

		if (!raw.ok) return sendError(res, 400, raw.message);
		if (text.length > 0) {
			const contentType = req.headers['content-type'] ?? '';
			if (!/^application\/json\b/i.test(contentType)) {
				return sendError(
					res,
					400,
					`Request bodies must be JSON with the header "Content-Type: application/json" (got "${contentType || 'none'}").`,
				);
			}
			if (!bodyIsJson) return sendError(res, 400, 'The request body is not valid JSON.');
		}
		await route.handler({ req, res, state, entry, key, param: route.param, url, body });
	} finally {
		if (res.headersSent && entry.status === 0) entry.status = res.statusCode;
	}
}

/** Applies an error or reset fault; false when the rule is only a delay. */
function applyFault(fault: RequestFault, req: IncomingMessage, res: ServerResponse): boolean {
	if (fault.reset) {
		const socket = req.socket;
		if (typeof socket.resetAndDestroy === 'function') socket.resetAndDestroy();
		else socket.destroy();
		return true;
	}
	if (fault.status === undefined) return false;
	const headers: Record<string, string> = {};
	if (fault.retryAfter !== undefined) {
		headers['retry-after'] = fault.retryAfterDate
			? new Date(Date.now() + fault.retryAfter * 1000).toUTCString()
			: String(Math.round(fault.retryAfter));
	}
	const body = fault.body ?? 'json';
	if (body === 'json') {
		sendError(res, fault.status, fault.message ?? defaultFaultMessage(fault.status), headers);
	} else {
		const html =
			body === 'html' ? (PROXY_HTML[fault.status] ?? `<html><body><h1>${fault.status} Error</h1></body></html>`) : '';
		const type: Record<string, string> = body === 'html' ? { 'content-type': 'text/html' } : {};
		res.writeHead(fault.status, { ...type, 'content-length': String(Buffer.byteLength(html)), ...headers });
		res.end(html);
	}
	return true;
}
