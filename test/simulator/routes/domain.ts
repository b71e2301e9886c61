/** Lookup, search and bulk (interface sections 4.1 to 4.3). */
import { PLANS } from '../auth';
import { isPlainObject, sendError, sendJson } from '../http-utils';
import { hash2, hashString } from '../random';
import { parseSearchBody } from '../search';
import type { DomainObject } from '../types';
import type { ApiContext } from './context';

export const MAX_BULK_DOMAINS = 100;

/** GET /domain/<name>: names are matched case-insensitively (the index holds lower-case names). */
export function getDomain({ res, state, param }: ApiContext): void {
	const name = (param ?? '').trim();
	if (!name) return sendError(res, 400, 'Missing domain name: GET /json/api/v1/domain/<name>.');
	const domain = state.index.findByName(name);
	if (!domain) return sendError(res, 404, `Domain not found: ${name}`);
	sendJson(res, 200, { domain });
}

export function searchDomains({ res, state, key, body }: ApiContext): void {
	const plan = PLANS[key.plan];
	const parsed = parseSearchBody(body, plan.maxPageSize, key.plan, state.searchMode);
	if (!parsed.ok) return sendError(res, 400, parsed.message);
	const outcome = state.search.search(parsed.value);
	if (!outcome.ok) return sendError(res, 400, outcome.message);
	sendJson(res, 200, outcome.value);
}

/**
 * POST /domain/bulk: at most 100 names; unknown names are left out; a name asked twice is returned
 * once. The order of the answer is a deterministic shuffle, never the order of the request (the
 * service does not promise one), so clients must match results by name.
 */
export function bulkDomains({ res, state, body }: ApiContext): void {
	if (!isPlainObject(body)) return sendError(res, 400, 'The bulk body must be a JSON object {"domains": [...]}.');
	for (const field of Object.keys(body)) {
		if (field !== 'domains') return sendError(res, 400, `Unknown field "${field}" in the bulk body. Allowed: domains.`);
	}
	const names = body.domains;
	if (!Array.isArray(names) || !names.every((n) => typeof n === 'string')) {
		return sendError(res, 400, 'domains must be an array of domain names (strings).');
	}
	if (names.length > MAX_BULK_DOMAINS) {
		return sendError(res, 400, `Too many domains: ${names.length} given, at most ${MAX_BULK_DOMAINS} per request.`);
	}
	const found = new Map<string, DomainObject>();
	for (const name of names as string[]) {
		const domain = state.index.findByName(name.trim());
		if (domain && !found.has(domain.name)) found.set(domain.name, domain);
	}
	sendJson(res, 200, { domains: shuffleNotInRequestOrder([...found.values()], state.seed) });
}

function shuffleNotInRequestOrder(domains: DomainObject[], seed: number): DomainObject[] {
	const shuffled = domains
		.map((domain) => ({ domain, order: hash2(seed, hashString(domain.name)) }))
		.sort((a, b) => a.order - b.order)
		.map((entry) => entry.domain);
	if (shuffled.length > 1 && shuffled.every((domain, i) => domain === domains[i]))
		shuffled.push(shuffled.shift() as DomainObject);
	return shuffled;
}
