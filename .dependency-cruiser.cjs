/**
 * dependency-cruiser, run by `npm run lint` (`depcruise nodes credentials scripts`): the layers of the shipped code
 * point one way, and nothing in nodes/ or scripts/ imports itself round a cycle.
 *
 * Layers of DomainData, bottom up: errors.ts and parameters.ts (n8n-workflow only, and parameters.ts on errors.ts),
 * transport/, helpers/, actions/, the node. Nothing below actions/ imports actions/, and nothing outside transport/
 * reaches past its index (service errors come from there, parameter errors from errors.ts). The trigger
 * (nodes/DomainDataTrigger) is a second node on these layers: of actions/ it shares only the editor definitions
 * (common.ts, dataset/output.ts), never an operation, a resource, the router or the per-item runner; DomainData does
 * not import its trigger. Type-only imports count: they tie the layers as much as any other.
 *
 * Tests may reach any module (a unit test imports transport/'s pieces), so the layer rules hold for shipped code only.
 */
const DOMAIN_DATA = '^nodes/DomainData/';
const SHIPPED = '^(nodes|credentials)/';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
	forbidden: [
		{
			name: 'bottom-layer',
			comment: 'errors.ts and parameters.ts are the bottom layer: they import n8n-workflow and ./errors only.',
			severity: 'error',
			from: { path: `${DOMAIN_DATA}(errors|parameters)\\.ts$` },
			to: { pathNot: [`${DOMAIN_DATA}errors\\.ts$`, '(^|/)node_modules/n8n-workflow/'] },
		},
		{
			name: 'transport-through-index',
			comment: 'Import the transport through its index (transport/); errors of parameters come from errors.ts.',
			severity: 'error',
			from: { path: SHIPPED, pathNot: `${DOMAIN_DATA}transport/` },
			to: { path: `${DOMAIN_DATA}transport/`, pathNot: `${DOMAIN_DATA}transport/index\\.ts$` },
		},
		{
			name: 'actions-above-helpers-and-transport',
			comment: 'transport/ and helpers/ sit below actions/: move the shared piece down instead.',
			severity: 'error',
			from: { path: `${DOMAIN_DATA}(helpers|transport)/` },
			to: { path: `${DOMAIN_DATA}actions/` },
		},
		{
			name: 'trigger-shares-editor-definitions-only',
			comment: 'The trigger shares the editor definitions of actions/ (common, dataset/output) only.',
			severity: 'error',
			from: { path: '^nodes/DomainDataTrigger/' },
			to: { path: `${DOMAIN_DATA}actions/`, pathNot: `${DOMAIN_DATA}actions/(common|dataset/output)\\.ts$` },
		},
		{
			name: 'domain-data-without-trigger',
			comment: 'DomainData does not depend on its trigger.',
			severity: 'error',
			from: { path: SHIPPED, pathNot: '^nodes/DomainDataTrigger/' },
			to: { path: '^nodes/DomainDataTrigger/' },
		},
		{
			name: 'no-circular',
			comment: 'No module of nodes/ or scripts/ imports itself through others: split out the shared piece.',
			severity: 'error',
			from: { path: '^(nodes|scripts)/' },
			to: { circular: true },
		},
	],
	options: {
		doNotFollow: { path: 'node_modules' },
		tsConfig: { fileName: 'tsconfig.json' },
		// `import type` is erased by the compiler, but still a dependency of the design.
		tsPreCompilationDeps: true,
		exclude: { path: '^dist/' },
	},
};
