/** The Domains filter (Stream, Compare, Enrich Items): its list, a selector declining other names' lines unparsed. */
import type { IDataObject } from 'n8n-workflow';

import { clip, count, describeValue, quoteFew } from '../errors';
import {
	isNormalName,
	type LineSelector,
	NAME_FIRST,
	normalizeDomainName,
	rawName,
	repeatsName,
	splitDomainList,
} from './domainName';
import { DomainSet, NOT_LISTED } from './domainSet';

/** Names quoted in hints and summaries (the count is always exact). */
const EXAMPLES = 5;
/** Characters of an entry echoed in a summary, as many as describeValue quotes in a hint. */
const EXAMPLE_CHARS = 200;

/**
 * A Domains list; a record's name is read as Domain → Get reads one ("www." kept: another domain). A name in normal
 * form (nearly every line) is looked up as sent; any other (`Example.COM`, `münchen.de`) is normalised, then looked up.
 */
class ListedNames extends DomainSet {
	/** `normal`: the caller already knows whether the name is in normal form (listedLines checks while it reads). */
	override indexOf(text: string, start = 0, end = text.length, normal?: boolean): number {
		const index = super.indexOf(text, start, end);
		if (index !== NOT_LISTED || (normal ?? isNormalName(text, start, end))) return index;
		const normalized = normalizeDomainName(text.slice(start, end), { removeWww: false });
		return normalized.ok ? super.indexOf(normalized.name) : NOT_LISTED;
	}
}

/** A Domains list: its names, and the entries that are no name, URL or email address (left out, counted). */
export type DomainList = { names: ListedNames; rejected: { count: number; examples: string[] } };

/** A list (text, or arrays of any nesting) normalised as Domain → Get does; examples clipped (a cell can hold MBs). */
export function readDomainList(value: unknown): DomainList {
	const entries = splitDomainList(value);
	const names = new ListedNames(entries.length);
	const rejected = { count: 0, examples: [] as string[] };
	for (const entry of entries) {
		const normalized = normalizeDomainName(entry);
		if (normalized.ok) names.add(normalized.name);
		else if (rejected.count++ < EXAMPLES) {
			rejected.examples.push(typeof entry === 'string' ? clip(entry, EXAMPLE_CHARS) : describeValue(entry));
		}
	}
	return { names: names.trim(), rejected };
}

/** Declines unlisted names' lines; listed ones (marked seen) and any not read raw (the filter judges) go to `then`. */
export function listedLines(names: ListedNames, then?: LineSelector): LineSelector {
	return (text, start, end) => {
		const found = rawName(text, start, end);
		if (found !== -1) {
			const close = found < 0 ? ~found : found;
			const from = start + NAME_FIRST.length;
			const index = names.indexOf(text, from, close, found >= 0);
			if (index !== NOT_LISTED) names.markSeen(index);
			else if (!repeatsName(text, close, end)) return false;
		}
		return then ? then(text, start, end) : true;
	};
}

/** A read list's summary and hints: entries left out; if `whole` (all read), names no line held (`missing`: where). */
export function domainListReport(list: DomainList | undefined, whole: boolean, missing: string) {
	if (!list) return { summary: {}, hints: [] };
	const { names, rejected } = list;
	const hints: string[] = [];
	const domainList: IDataObject = { listed: names.size };
	if (whole) {
		const unseen = names.unseen(EXAMPLES);
		domainList.notFound = unseen.count;
		domainList.notFoundExamples = unseen.examples.map((name) => clip(name, EXAMPLE_CHARS));
		if (unseen.count > 0) {
			const which = `${count(unseen.count)} of the ${count(names.size)} listed domain${names.size > 1 ? 's' : ''}`;
			const verb = unseen.count > 1 ? 'are' : 'is';
			hints.push(`${which} ${verb} ${missing}: ${quoteFew(unseen.examples, unseen.count)}`);
		}
	}
	if (rejected.count > 0) {
		domainList.rejected = rejected.count;
		domainList.rejectedExamples = rejected.examples;
		const entries = rejected.count > 1 ? `${count(rejected.count)} entries` : '1 entry';
		hints.push(
			`Left out ${entries} of the filter "Domains" that ${rejected.count > 1 ? 'are' : 'is'} not a domain name: ` +
				quoteFew(rejected.examples, rejected.count),
		);
	}
	return { summary: { domainList }, hints };
}
