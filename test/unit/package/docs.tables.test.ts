/**
 * The generated tables of the docs (the parameters of each operation, the trigger and the credential; the limits)
 * are what scripts/docs/tables.ts writes from the code today: a parameter or a limit changed in nodes/ without
 * `npm run docs:tables` fails here, naming the page.
 */
import { generatedPage, generatedPages, TABLES_COMMAND } from '../../../scripts/docs/tables';

describe('the generated tables of the docs', () => {
	it('are up to date with the node descriptions and the constants of nodes/', () => {
		const stale = generatedPages()
			.filter(({ current, generated }) => current !== generated)
			.map(({ page }) => `${page} differs from the code: run \`${TABLES_COMMAND}\``);
		expect(stale).toEqual([]);
	});

	it('fails on a page that lost a region, or holds one nothing generates', () => {
		expect(() => generatedPage('docs/trigger.md', 'no region')).toThrow(/trigger\.parameters are missing/);
		const unknown = '<!-- generated: nothing.here -->\n<!-- /generated -->';
		expect(() => generatedPage('docs/trigger.md', unknown)).toThrow(/no generator for the region "nothing\.here"/);
	});
});
