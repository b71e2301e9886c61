/**
 * The sentences of a tool answer that say what the run looked at (RunFacts): a model that is not told reads "no
 * change" or "3 records" as more than they are.
 */
import type { IDataObject } from 'n8n-workflow';

import { count, quoteFew } from '../../errors';
import { notHeldBy } from '../dataset/sink/source';
import type { RunFacts } from '../perItem';
import { cleanText } from './cleanText';

const MAX_LABEL = 40;
const label = (text: string | undefined) => `"${cleanText(String(text ?? ''), MAX_LABEL)}"`;

/** `a, b and c`. */
function listed(texts: string[]): string {
	return texts.length > 1 ? `${texts.slice(0, -1).join(', ')} and ${texts.at(-1)}` : (texts[0] ?? '');
}

/** `12 removed, 8 added`. */
function changeCounts(records: IDataObject[]): string {
	const counts = new Map<string, number>();
	for (const record of records) counts.set(String(record.change), (counts.get(String(record.change)) ?? 0) + 1);
	return [...counts].map(([change, n]) => `${count(n)} ${change}`).join(', ');
}

const changes = (n: number) => `${count(n)} change${n === 1 ? '' : 's'}`;

/** `in title and technologies between "2025-06-30" and the older "2025-06-23"` (`in`: `preposition`). */
function whatCompared({ compared, labels }: RunFacts, preposition: string): string {
	const between = labels ? ` between ${label(labels.label)} and the older ${label(labels.baseLabel)}` : '';
	const fields = compared ? listed(compared.fields.map((field) => cleanText(field, MAX_LABEL))) : '';
	return `${fields ? ` ${preposition}${fields}` : ''}${between}`;
}

/** Whether rank was compared, and from which move on it counts: a model asks about rank moves. */
function rankSentence({ compared }: RunFacts): string[] {
	if (!compared) return [];
	if (compared.minRankMove === undefined) return ['Rank was not compared: a change of rank alone is not shown.'];
	if (compared.minRankMove <= 1) return ['Rank was compared: any rank move counts.'];
	return [`Rank was compared: moves smaller than ${count(compared.minRankMove)} ranks are not counted.`];
}

/**
 * Compare's first sentences: what was compared, then the changes: counted per kind when the run went to the end, else
 * the first found (removals come first), said plainly so that no model reads them as a sample.
 */
export function compareSentences(found: IDataObject[], shown: IDataObject[], more: boolean, run: RunFacts): string[] {
	if (found.length === 0) return [`No change found${whatCompared(run, 'in ')}.`, ...rankSentence(run)];
	const what = whatCompared(run, '');
	const compared = what ? [`Compared${what}.`, ...rankSentence(run)] : [];
	if (!more) {
		const all = `${changes(found.length)} in all (${changeCounts(found)})`;
		if (shown.length < found.length) return [`${all}, ${count(shown.length)} shown.`, ...compared];
		return [`${all}, ${found.length === 1 ? '' : 'all '}shown.`, ...compared];
	}
	const counts = shown.length > 0 ? ` (${changeCounts(shown)})` : '';
	return [
		`${changes(shown.length)} shown${counts}: the first ones found, not a sample of every ` +
			'kind, since removals are found first and additions and other changes after them; how many changes of each ' +
			'kind exist is not known from this call.',
		...compared,
	];
}

/** Stream's first sentence: the records shown, from which snapshot, and how much of it was read. */
export function streamSentence(shown: number, { labels, snapshotRead: read }: RunFacts): string {
	const records = `${count(shown)} record${shown === 1 ? '' : 's'}`;
	if (!labels || !read) return `${records} shown.`;
	const of = `of the snapshot ${label(labels.label)}`;
	const lines = `${count(read.lines)} line${read.lines === 1 ? '' : 's'}`;
	if (read.toEnd) {
		const which = read.filtered ? 'every record that matches the filters' : 'every record';
		return `${records} shown ${of}: ${which}; the whole snapshot was read (${lines}).`;
	}
	const which = read.filtered ? 'the first that match the filters' : 'its first records';
	return `${records} shown ${of}: ${which}, found in its first ${lines}; the rest of it was not read.`;
}

/** List's first sentence: newest first, and whether these are all the snapshots that exist. */
export function listSentence(shown: number, { datasetsInAll: all }: RunFacts): string {
	const datasets = `${count(shown)} dataset${shown === 1 ? '' : 's'} (snapshots) shown, newest first`;
	if (all === undefined) return `${datasets}.`;
	if (shown >= all) return `${datasets}: all that exist.`;
	return `${datasets}, of ${count(all)} that exist.`;
}

/** What the run found about the Domains list: the names no snapshot read held, the entries that are no domain. */
export function domainListSentences({ domainList: list, labels }: RunFacts): string[] {
	if (!list || !labels) return [];
	const sentences: string[] = [];
	if (list.notFound) {
		const which = `${count(list.notFound)} of the ${count(list.listed)} listed domain${list.listed > 1 ? 's' : ''}`;
		const examples = quoteFew(list.notFoundExamples ?? [], list.notFound);
		sentences.push(`${which} ${list.notFound > 1 ? 'are' : 'is'} ${notHeldBy(labels)}: ${examples}`);
	}
	if (list.rejected) {
		const entries = list.rejected > 1 ? `${count(list.rejected)} entries` : '1 entry';
		const examples = quoteFew(list.rejectedExamples ?? [], list.rejected);
		const verb = list.rejected > 1 ? 'are' : 'is';
		sentences.push(`Left out ${entries} of the domains given that ${verb} not a domain name: ${examples}`);
	}
	return sentences.map((sentence) => `${cleanText(sentence, 600)}.`);
}
