/**
 * The package in n8n's editor, in a real browser, the way a newcomer meets it: every n8n version of the test
 * matrix (scripts/n8n/versions.ts: 2.41.1, 2.8.4, 1.123.81; `N8N_E2E_VERSIONS` narrows it) started with a fresh
 * user folder and the packed tarball installed as a community package, Debian's Chromium driven by playwright-core
 * (one browser for the run, a context of its own per version), the simulator as the service. What the steps need
 * in n8n besides (a sub-workflow, the example and its credentials) is created through the REST API of the running
 * n8n, as the editor saves it. One scenario per version, step by step (jest runs the steps in order, on the same
 * page, which loads the editor once): sign in, find the node by name, create the credential (its Test reports a
 * refused key, then success), add the trigger and the Stream action, check the resource, operation and label
 * options against the node's description and the README's table of resources, and choose the workflow of the
 * Sub-Workflow output from the instance's workflows; then open the AI-agent example's chat, ask about a domain and
 * get the answer the stand-in model (scripts/model) builds from the tool's data.
 *
 * Screenshots go to test-output/editor/<version>/ (ignored by git), so `npm test` never rewrites tracked
 * files; `npm run docs:images` (N8N_DOCS_IMAGES=1) runs the newest version alone and writes the README's
 * screenshots into docs/images/ instead.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';

import { DomainData } from '../../nodes/DomainData/DomainData.node';
import { subWorkflowOutputOption } from '../../nodes/DomainData/actions/dataset/output';
import { DomainDataTrigger } from '../../nodes/DomainDataTrigger/DomainDataTrigger.node';
import type { PackedPackage } from '../../scripts/n8n/package';
import { ensureN8n } from '../../scripts/n8n/install';
import { N8nInstance, type N8nProcess, type WorkflowImport } from '../../scripts/n8n/instance';
import { chain, executeWorkflowTrigger, noOp, workflow, workflowId } from '../../scripts/n8n/workflows';
import { REPO_ROOT } from '../../scripts/n8n/paths';
import { NEWEST_N8N_VERSION, selectedMatrix } from '../../scripts/n8n/versions';
import { DEFAULT_OWNER, N8nRestClient } from '../../scripts/n8n/rest';
import { EXAMPLE_CREDENTIAL, EXAMPLE_MODEL_CREDENTIAL, loadExamples } from '../../scripts/n8n/examples';
import { CREDENTIAL_TYPE } from '../../scripts/n8n/package';
import { startModel, type StandInModel } from '../../scripts/model/server';
import { modelCredential } from '../../scripts/model/workflows';
import { credentialRuleMessage, N8N_CHANGES, packedPackage } from '../e2e/support';
import { isAtLeast } from '../../scripts/n8n/versions';
import { KEYS, startSimulator, type Simulator } from '../simulator';
import { ensureChromium, launchChromium } from './chromium';

/** Where a version's screenshots go: docs/images for the newest with N8N_DOCS_IMAGES=1, else an ignored folder. */
function screenshotDir(version: string): string {
	if (process.env.N8N_DOCS_IMAGES && version === NEWEST_N8N_VERSION) return join(REPO_ROOT, 'docs', 'images');
	return join(REPO_ROOT, 'test-output', 'editor', version);
}
const VIEWPORT = { width: 1280, height: 800 };

/** The public resources and operations (the README's table); n8n's editor adds its own "Custom API Call" to both lists. */
const PRODUCT_OPERATIONS: Record<string, string[]> = {
	domain: ['get', 'search', 'bulk', 'enrich'],
	dataset: ['compare', 'list', 'stream'],
};
const ACTION_COUNT = Object.values(PRODUCT_OPERATIONS).flat().length;
const CUSTOM_API_CALL = 'Custom API Call';
/** A workflow of the instance that the Sub-Workflow output can run: the picker must list it. */
const SUB_WORKFLOW = { id: workflowId('editorSubWorkflow'), name: 'Write a batch of records' };

const log = (line: string) => process.stdout.write(`[editor test] ${line}\n`);

const nodeDescription = new DomainData().description;
const triggerDescription = new DomainDataTrigger().description;

function property(name: string, resource?: string): INodeProperties {
	const found = nodeDescription.properties.find(
		(p) => p.name === name && (!resource || p.displayOptions?.show?.resource?.includes(resource)),
	);
	if (!found) throw new Error(`The node has no parameter ${name}${resource ? ` for ${resource}` : ''}`);
	return found;
}

/** Reads a value until it satisfies `done` (the editor renders asynchronously), at most `timeoutMs`; returns the last read. */
async function settle<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 15_000): Promise<T> {
	const deadline = Date.now() + timeoutMs;
	let value = await read();
	while (!done(value) && Date.now() < deadline) {
		await new Promise((resolvePromise) => setTimeout(resolvePromise, 100));
		value = await read();
	}
	return value;
}

/**
 * The names n8n's node panel gives the trigger's actions (its `triggersCategory`): one per option of a parameter
 * named "Event", "Events" or "Trigger On" (the option's `action`, else "On <name in lower case>"), else
 * "On new <app> event".
 */
function triggerActionNames(): string[] {
	const event = triggerDescription.properties.find((p) =>
		['event', 'events', 'trigger on'].includes(p.displayName.toLowerCase()),
	);
	if (!event?.options) return [`On new ${triggerDescription.displayName.replace('Trigger', '').trim()} event`];
	return (event.options as INodePropertyOptions[]).map(
		(o) => o.action ?? `On ${o.name.split('.').join(' ').toLowerCase()}`,
	);
}

function options(p: INodeProperties): INodePropertyOptions[] {
	return (p.options ?? []) as INodePropertyOptions[];
}

/** The workflow with its nodes' credential references pointed at the ids n8n gave those credentials. */
function withCredentialIds(workflow: WorkflowImport, ids: Record<string, string>): WorkflowImport {
	const nodes = workflow.nodes.map((node) => {
		const refs = node.credentials as Record<string, { id: string; name: string }> | undefined;
		if (!refs) return node;
		const credentials = Object.fromEntries(
			Object.entries(refs).map(([type, ref]) => [type, { ...ref, id: ids[ref.id] ?? ref.id }]),
		);
		return { ...node, credentials };
	});
	return { ...workflow, nodes };
}

/** What the test reads of the editor's Vue app: its router. */
interface VueApp {
	config: { globalProperties: { $router: { push(path: string): Promise<unknown> } } };
}

/** One Chromium for every version of the run; each version gets a context of its own (cookies, storage, cache). */
let sharedBrowser: Promise<Browser> | undefined;
function browserOnce(): Promise<Browser> {
	sharedBrowser ??= launchChromium();
	return sharedBrowser;
}
afterAll(async () => {
	if (sharedBrowser) await (await sharedBrowser).close();
}, 60_000);

// Chromium from apt; a machine without apt skips with the reason, CI never skips.
const chromium = ensureChromium(log);
if (!chromium.ok && process.env.CI) throw new Error(`The editor test cannot run on CI: ${chromium.reason}`);
const describeInBrowser = chromium.ok ? describe : describe.skip;
if (!chromium.ok) log(`skipped: ${chromium.reason}`);

/** Every version of the matrix; the README's screenshots come from the newest (alone with N8N_DOCS_IMAGES=1). */
const EDITORS = (
	process.env.N8N_DOCS_IMAGES ? [NEWEST_N8N_VERSION] : selectedMatrix().map((entry) => entry.version)
).map((version) => ({ version, images: screenshotDir(version) }));

describeInBrowser.each(EDITORS)(
	'the editor: n8n $version in Chromium, the package installed from its tarball',
	({ version, images }) => {
		let sim: Simulator;
		let model: StandInModel;
		let packed: PackedPackage;
		let n8n: N8nInstance;
		let server: N8nProcess;
		let rest: N8nRestClient;
		let subWorkflowId: string;
		let context: BrowserContext;
		let page: Page;

		const creator = () => page.locator('[data-test-id="node-creator"]');
		const creatorItem = (name: string | RegExp) =>
			creator().locator('[data-test-id="node-creator-item-name"]', { hasText: name });
		const credentialModal = () => page.locator('[data-test-id="editCredential-modal"]');

		/** Screenshots without a hover effect where the last click was. */
		async function screenshot(file: string, target?: Locator): Promise<void> {
			await page.mouse.move(VIEWPORT.width / 2, 2);
			// The hover style's transition runs to its end before the capture ("disabled" finishes finite animations).
			const path = join(images, file);
			if (target) await target.screenshot({ path, animations: 'disabled' });
			else await page.screenshot({ path, animations: 'disabled' });
			log(`screenshot ${path}`);
		}

		/**
		 * A parameter's dropdown once it takes clicks: n8n disables it while it loads its options from the service
		 * (Stream's labels), and a click then opens nothing.
		 */
		async function selectField(parameter: string): Promise<Locator> {
			const field = page.locator(`[data-test-id="parameter-input-${parameter}"]`);
			await field.locator('input:not([disabled])').first().waitFor({ state: 'attached' });
			return field;
		}

		/** The texts of the open dropdown of a parameter (n8n adds the option's description under its name). */
		async function dropdownOptions(parameter: string): Promise<string[]> {
			// n8n 2.41 sometimes takes the first click after a dropdown closed as a focus only: click once more
			// when no dropdown opened.
			for (let attempt = 1; ; attempt++) {
				await (await selectField(parameter)).click();
				try {
					await page.locator('.el-select-dropdown:visible').waitFor({ timeout: 5000 });
					break;
				} catch (error) {
					if (attempt >= 3) throw error;
				}
			}
			const items = page.locator('.el-select-dropdown:visible .el-select-dropdown__item');
			await items.first().waitFor();
			return await items.evaluateAll((elements) =>
				elements.map((element) => {
					// The option's name; its description, when there is one, is a sibling element.
					const name = element.querySelector('.option-headline');
					return (name?.textContent ?? element.textContent ?? '').trim();
				}),
			);
		}

		/** Closes the node's panel: n8n 2.x has a close button, 1.x a "Back to canvas" one. */
		async function closeNdv(): Promise<void> {
			const ndv = page.locator('[data-test-id="ndv"]');
			if (!(await ndv.isVisible())) return;
			await page
				.locator('[data-test-id="ndv-close-button"]:visible, [data-test-id="back-to-canvas"]:visible')
				.first()
				.click();
			await ndv.waitFor({ state: 'hidden' });
		}

		async function closeDropdown(): Promise<void> {
			await page.keyboard.press('Escape');
			await page.locator('.el-select-dropdown:visible').waitFor({ state: 'hidden' });
		}

		async function chooseOption(parameter: string, name: string): Promise<void> {
			await (await selectField(parameter)).click();
			const exactly = new RegExp(`^${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`);
			await page.locator('.el-select-dropdown:visible .option-headline', { hasText: exactly }).click();
			await page.locator('.el-select-dropdown:visible').waitFor({ state: 'hidden' });
		}

		beforeAll(async () => {
			mkdirSync(images, { recursive: true });
			await ensureN8n(version, { log });
			sim = await startSimulator({ domains: 1000 });
			model = await startModel();
			// The tarball the end-to-end set-up packed for this run (or a fresh build and pack when run alone).
			packed = await packedPackage();
			// Jest's NODE_ENV=test makes `n8n start` exit at once with code 1 and no output: n8n runs without it.
			n8n = await N8nInstance.create({ version, package: packed, env: { NODE_ENV: undefined } });
			server = await n8n.start();
			rest = new N8nRestClient(n8n.url);
			await rest.ensureOwner();
			subWorkflowId = await rest.createWorkflow(
				workflow(SUB_WORKFLOW.id, SUB_WORKFLOW.name, chain(executeWorkflowTrigger(), noOp('Write'))),
			);
			context = await (await browserOnce()).newContext({ viewport: VIEWPORT });
			page = await context.newPage();
			page.setDefaultTimeout(30_000);
		}, 30 * 60_000);

		afterAll(async () => {
			await context?.close();
			await n8n?.dispose();
			await model?.close();
			await sim?.close();
		}, 60_000);

		it('signs in as the owner', async () => {
			// Signed in, the editor goes on to the page named by `redirect` (a new workflow) without loading again.
			await page.goto(`${n8n.url}/signin?redirect=${encodeURIComponent('/workflow/new')}`);
			await page.locator('[data-test-id="emailOrLdapLoginId"] input').fill(DEFAULT_OWNER.email);
			await page.locator('[data-test-id="password"] input').fill(DEFAULT_OWNER.password);
			await page.locator('[data-test-id="form-submit-button"]').click();
			await page.waitForURL((url) => !url.pathname.startsWith('/signin'));
			expect(server.exited).toBe(false);
		}, 60_000);

		it('finds "Domain Data" in the node panel by its name, with our icon, and the trigger under Triggers', async () => {
			await page.locator('[data-test-id="canvas-plus-button"]').click();
			await creator().locator('[data-test-id="node-creator-search-bar"]').fill('Domain Data');
			const result = creator().locator('[data-test-id="item-iterator-item"]', { hasText: 'Domain Data' }).first();
			await result.waitFor();

			// The icon is our light SVG, served by n8n from the installed package, and the browser rendered it.
			const icon = result.locator('img').first();
			const src = await icon.getAttribute('src');
			expect(src).toBe('/icons/n8n-nodes-domain-data/dist/nodes/DomainData/domainData.svg');
			const rendered = await settle(
				() => icon.evaluate((img: HTMLImageElement) => (img.complete ? img.naturalWidth : 0)),
				(w) => w > 0,
			);
			expect(rendered).toBeGreaterThan(0);
			const served = await page.request.get(`${n8n.url}${src}`);
			expect(served.status()).toBe(200);
			expect(await served.text()).toBe(readFileSync(join(packed.dir, 'dist/nodes/DomainData/domainData.svg'), 'utf8'));
			await screenshot('node-panel-search.png');

			// Opening the app shows its trigger under "Triggers": n8n names it after the trigger node.
			await creatorItem(/^Domain Data$/)
				.first()
				.click();
			const triggers = creator().locator('[data-test-id="node-creator-category-item"]', { hasText: 'Triggers' });
			const triggerNames = triggerActionNames();
			const triggersHeading = `Triggers (${triggerNames.length})`;
			expect(
				await settle(
					() => triggers.innerText(),
					(text) => text.includes(triggersHeading),
				),
			).toContain(triggersHeading);
			for (const name of triggerNames) await creatorItem(name).waitFor();
			expect(
				await creator().locator('[data-test-id="node-creator-category-item"]', { hasText: 'Actions' }).innerText(),
			).toContain(`Actions (${ACTION_COUNT})`);
		}, 60_000);

		it("creates the credential: Test reports the service's refusal of a wrong key, then success", async () => {
			await creatorItem(triggerActionNames()[0]).click();
			await page.locator('[data-test-id="ndv"]').waitFor();
			// n8n 2.41 shows a "Connect to Domain Data" button while no credential of the type exists; 2.8 and 1.x a
			// dropdown with "Create new credential".
			const connect = page.locator('[data-test-id="node-credentials-empty-state"]');
			const select = page.locator('[data-test-id="node-credentials-select"]');
			await connect.or(select).first().waitFor();
			if (await connect.isVisible()) {
				await connect.getByText('Connect to').click();
			} else {
				await select.click();
				await page.locator('[data-test-id="node-credentials-select-item-new"]').click();
			}
			await credentialModal().waitFor();

			// A wrong key: saving tests the credential with a real request that the service refuses.
			sim.clearLog();
			await credentialModal().locator('[data-test-id="parameter-input-apiKey"] input').fill('not-a-valid-key');
			await credentialModal().locator('[data-test-id="parameter-input-baseUrl"] input').fill(sim.url);
			await credentialModal().locator('[data-test-id="credential-save-button"]').click();
			const config = credentialModal().locator('[data-test-id="node-credentials-config-container"]');
			await config.getByText('Couldn’t connect with these settings').waitFor();
			await config.getByText('More details').click();
			// Saving tests the credential (n8n 2.8.4 sends the test request twice when it fails): every request carried
			// the typed key and the service refused it.
			const refused = sim.calls('search');
			expect(refused.length).toBeGreaterThan(0);
			expect(new Set(refused.map((call) => `${call.headers.authorization} -> ${call.status}`))).toEqual(
				new Set(['Bearer not-a-valid-key -> 401']),
			);
			// What the dialog shows for the service's 401: n8n 2.41 the credential's own message for that status,
			// n8n 2.8 and 1.x their fixed text (see server.test.ts); never a "success" or a connection error.
			if (isAtLeast(version, N8N_CHANGES.credentialTestRuleMessages)) {
				expect(await config.innerText()).toContain(credentialRuleMessage(401));
			} else {
				expect(await config.innerText()).toMatch(/Authorization failed - please check your credentials|\(401\)/);
			}
			await screenshot('credential-test-failed.png', credentialModal());

			// The right key: the same Test succeeds.
			sim.clearLog();
			await credentialModal().locator('[data-test-id="parameter-input-apiKey"] input').fill(KEYS.pro);
			await credentialModal().locator('[data-test-id="credential-save-button"]').click();
			if (isAtLeast(version, N8N_CHANGES.credentialDialogClosesOnSuccess)) {
				// n8n 2.41 closes the dialog once the test passes; the pencil next to the credential opens it again,
				// and it tests again and shows the result.
				await credentialModal().waitFor({ state: 'hidden' });
				await page.locator('[data-test-id="credential-edit-button"]').click();
				await credentialModal().waitFor();
			}
			await config.getByText('Connection tested successfully').waitFor();
			const accepted = sim.calls('search');
			expect(accepted.length).toBeGreaterThan(0);
			expect(new Set(accepted.map((call) => `${call.headers.authorization} -> ${call.status}`))).toEqual(
				new Set([`Bearer ${KEYS.pro} -> 200`]),
			);
			await screenshot('credential-test-succeeded.png', credentialModal());

			// Escape closes the credential dialog (and, in n8n 2.8, the node's panel under it too).
			await page.keyboard.press('Escape');
			await credentialModal().waitFor({ state: 'hidden' });
			await closeNdv();
			await page.locator('[data-test-id="canvas-node"]', { hasText: 'Domain Data Trigger' }).waitFor();
		}, 90_000);

		it('lists every operation of the product as an action in the node panel', async () => {
			await page.locator('[data-test-id="canvas-handle-plus-wrapper"]').first().click();
			await creator().locator('[data-test-id="node-creator-search-bar"]').fill('Domain Data');
			await creatorItem(/^Domain Data$/)
				.first()
				.click();
			const expected = Object.entries(PRODUCT_OPERATIONS).flatMap(([resource, operations]) => {
				const byValue = new Map(options(property('operation', resource)).map((o) => [o.value, o]));
				return operations.map((value) => byValue.get(value)?.action ?? `(no ${resource} ${value})`);
			});
			// The panel slides from the search results to the app's actions: read once the actions are there.
			const names = creator().locator('[data-test-id="node-creator-item-name"]');
			const actions = await settle(
				() => names.allInnerTexts(),
				(texts) => texts.length > 0 && !texts.includes('Domain Data'),
			);
			expect([...actions].sort()).toEqual([...expected].sort());
			await screenshot('node-panel-actions.png');
		}, 60_000);

		it('offers exactly the resources and operations of the product', async () => {
			const streamAction = options(property('operation', 'dataset')).find((o) => o.value === 'stream')?.action;
			await creatorItem(streamAction ?? 'Stream a dataset').click();
			await page.locator('[data-test-id="ndv"]').waitFor();
			// The trigger's credential is the only one of its type: n8n selects it for the new node too.
			const selected = page.locator('[data-test-id="node-credentials-select"] input');
			expect(
				await settle(
					() => selected.inputValue(),
					(value) => value !== '',
				),
			).toBe('Domain Data account');

			const resources = options(property('resource'));
			expect(resources.map((o) => o.value).sort()).toEqual(Object.keys(PRODUCT_OPERATIONS).sort());
			expect(await dropdownOptions('resource')).toEqual([...resources.map((o) => o.name), CUSTOM_API_CALL]);
			await closeDropdown();

			for (const resource of ['domain', 'dataset']) {
				const resourceName = resources.find((o) => o.value === resource)!.name;
				await chooseOption('resource', resourceName);
				const operations = options(property('operation', resource));
				expect(operations.map((o) => o.value).sort()).toEqual([...PRODUCT_OPERATIONS[resource]].sort());
				expect(await dropdownOptions('operation')).toEqual([...operations.map((o) => o.name), CUSTOM_API_CALL]);
				await closeDropdown();
			}
			const streamName = options(property('operation', 'dataset')).find((o) => o.value === 'stream')!.name;
			await chooseOption('operation', streamName);
		}, 60_000);

		it("lists the service's datasets in Stream's label dropdown, after Latest", async () => {
			const { datasets } = (await (await fetch(`${sim.url}/__sim/snapshots`)).json()) as {
				datasets: Array<{ label: string }>;
			};
			expect(datasets.length).toBeGreaterThan(1);
			const labels = await dropdownOptions('label');
			expect(labels).toEqual(['Latest', ...datasets.map((d) => d.label)]);
			// The dropdown asked the service (when the panel opened), with the credential's key.
			expect(sim.calls('datasets').map((call) => call.headers.authorization)).toContain(`Bearer ${KEYS.pro}`);
			await screenshot('stream-label-dropdown.png');
			await page.locator('.el-select-dropdown:visible .option-headline', { hasText: datasets[0].label }).click();
			await closeNdv();
		}, 60_000);

		it("offers the instance's workflows in the Sub-Workflow output's Workflow picker, and keeps the chosen one's ID", async () => {
			await page.locator('[data-test-id="canvas-node"]', { hasText: 'Stream a dataset' }).dblclick();
			await page.locator('[data-test-id="ndv"]').waitFor();
			await chooseOption('output', subWorkflowOutputOption.name);
			// n8n's workflowSelector: a resource locator with the modes "From list" and "By ID".
			const picker = page.locator('[data-test-id="resource-locator-workflowId"]');
			const field = picker.locator('input[data-test-id="rlc-input"], [data-test-id="rlc-input"] input').first();
			await field.click();
			// The list is a popover of its own (2.x) or a dropdown (1.x): its rows carry this test id in both.
			const listed = page.locator('[data-test-id="rlc-item"]:visible');
			await listed.first().waitFor();
			expect(await listed.allInnerTexts()).toEqual(
				expect.arrayContaining([expect.stringContaining(SUB_WORKFLOW.name)]),
			);
			await screenshot('subworkflow-picker.png');
			await listed.filter({ hasText: SUB_WORKFLOW.name }).click();
			expect(
				await settle(
					() => field.inputValue(),
					(value) => value === SUB_WORKFLOW.name,
				),
			).toBe(SUB_WORKFLOW.name);

			// "By ID" shows the value the parameter holds: the workflow's ID.
			await picker.locator('[data-test-id="rlc-mode-selector"]').click();
			await page.locator('.el-select-dropdown:visible .el-select-dropdown__item', { hasText: /^By ID$/ }).click();
			expect(
				await settle(
					() => field.inputValue(),
					(value) => value === subWorkflowId,
				),
			).toBe(subWorkflowId);
			await screenshot('subworkflow-picker-by-id.png', page.locator('[data-test-id="ndv"]'));
			await closeNdv();
		}, 60_000);

		it('shows both nodes with our icons on the canvas', async () => {
			const nodes = page.locator('[data-test-id="canvas-node"]');
			expect(
				await settle(
					() => nodes.count(),
					(count) => count === 2,
				),
			).toBe(2);
			const sources = await page
				.locator('[data-test-id="canvas-node"] img')
				.evaluateAll((images) => images.map((img) => (img as HTMLImageElement).getAttribute('src')).sort());
			expect(sources).toEqual([
				'/icons/n8n-nodes-domain-data/dist/nodes/DomainData/domainData.svg',
				'/icons/n8n-nodes-domain-data/dist/nodes/DomainDataTrigger/domainDataTrigger.svg',
			]);
			// n8n places the new node one grid step to the right, where the two names overlap: move it further.
			const box = await nodes.filter({ hasText: 'Stream a dataset' }).boundingBox();
			if (box) {
				await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
				await page.mouse.down();
				await page.mouse.move(box.x + box.width / 2 + 120, box.y + box.height / 2, { steps: 10 });
				await page.mouse.up();
			}
			await page.locator('[data-test-id="zoom-to-fit"]').click();
			await screenshot('workflow-canvas.png');
		}, 60_000);

		it("answers in the AI-agent example's chat from the tool's data", async () => {
			// Created now, so that the steps above meet only the credential they create; the example's nodes then
			// name these credentials by the ids n8n gave them.
			const ids = {
				[EXAMPLE_CREDENTIAL.id]: await rest.createCredential({
					...EXAMPLE_CREDENTIAL,
					type: CREDENTIAL_TYPE,
					data: { apiKey: KEYS.pro, baseUrl: sim.url },
				}),
				[EXAMPLE_MODEL_CREDENTIAL.id]: await rest.createCredential(
					modelCredential(EXAMPLE_MODEL_CREDENTIAL, model.url),
				),
			};
			const example = loadExamples().find(({ file }) => file === 'ai-agent-tool.json')!.workflow;
			const exampleId = await rest.createWorkflow(withCredentialIds(example, ids));
			// Opened as a link inside the editor opens it, through the editor's router (Vue's app on #app), so the page
			// does not load the editor again. Where n8n asks whether to leave the canvas above unsaved (1.x), leave it.
			await page.evaluate((path) => {
				const app = document.querySelector('#app') as unknown as { __vue_app__: VueApp };
				void app.__vue_app__.config.globalProperties.$router.push(path);
			}, `/workflow/${exampleId}`);
			const leave = page.getByRole('button', { name: 'Leave without saving' });
			const agent = page.locator('[data-test-id="canvas-node"]', { hasText: 'AI Agent' });
			await leave.or(agent).first().waitFor();
			if (await leave.isVisible()) await leave.click();
			await agent.waitFor();
			await page.locator('[data-test-id="zoom-to-fit"]').click();
			await page.locator('[data-test-id="workflow-chat-button"]').click();
			const chat = page.locator('[data-test-id="canvas-chat"]');
			const domain = sim.index.domainAt(1);
			await chat.locator('textarea').first().fill(`What does ${domain.name} run on, and in which language is it?`);
			await page.keyboard.press('Enter');
			// The stand-in's answer quotes the tool's answer: the title, the language and the technologies.
			await chat.getByText(domain.title, { exact: false }).last().waitFor({ timeout: 90_000 });
			expect(await chat.innerText()).toContain(`runs ${(domain.technologies ?? []).join(', ')}`);
			expect(model.requests.some((request) => 'toolCall' in request.reply)).toBe(true);
			// Room for the question and the answer in the chat, and the whole workflow above it.
			await page.setViewportSize({ width: VIEWPORT.width, height: 1000 });
			// Without the run's toast ("Workflow executed successfully") over the chat: closed, not waited out.
			const toasts = page.locator('.el-notification');
			for (const close of await toasts.locator('.el-notification__closeBtn').all()) await close.click();
			await toasts
				.first()
				.waitFor({ state: 'hidden', timeout: 15_000 })
				.catch(() => undefined);
			await page.locator('[data-test-id="zoom-to-fit"]').click();
			// n8n 2.41 scrolls the newest message to the top of the chat: scroll back to the question.
			await chat.locator('*').evaluateAll((elements) => elements.forEach((element) => element.scrollTo(0, 0)));
			await screenshot('agent-chat.png');
		}, 150_000);
	},
);
