// Lint what n8n's verification lints: the n8n Cloud rule set of @n8n/eslint-plugin-community-nodes and the
// community, credentials and nodes sets of eslint-plugin-n8n-nodes-base on the shipped code and package.json
// (what `n8n-node lint` and @n8n/scan-community-package apply); ordinary TypeScript rules everywhere else.
// The layers of the shipped code and import cycles are dependency-cruiser's (.dependency-cruiser.cjs), dead exports
// and unused files knip's (knip.jsonc); `npm run lint` runs all three.
import tseslint from 'typescript-eslint';
import communityNodes from '@n8n/eslint-plugin-community-nodes';
import n8nNodesBase from 'eslint-plugin-n8n-nodes-base';

const shipped = ['nodes/**/*.ts', 'credentials/**/*.ts'];

// Rules of eslint-plugin-n8n-nodes-base that predate NodeConnectionTypes (which the n8n Cloud set requires
// instead of the "main" string) and absolute documentation URLs; n8n's own node starter turns them off too.
const outdatedRules = {
	'n8n-nodes-base/node-class-description-inputs-wrong-regular-node': 'off',
	'n8n-nodes-base/node-class-description-outputs-wrong': 'off',
	'n8n-nodes-base/cred-class-field-documentation-url-miscased': 'off',
};

// n8n's error constructors are called in one place, nodes/DomainData/errors.ts: its builders keep the message as
// written (n8n replaces a message that merely contains EPERM, ENOENT..., e.g. a domain "deeperm.com") and build
// from clean objects only (errors of axios carry the request, and so the API key).
const errorConstructors = {
	selector: 'NewExpression[callee.name=/^Node(Api|Operation)Error$/]',
	message: 'Build n8n errors through nodes/DomainData/errors.ts (buildApiError, operationError, asNodeError).',
};
const errorsModule = 'nodes/DomainData/errors.ts';

export default tseslint.config(
	{ ignores: ['dist/**', 'node_modules/**', 'coverage/**', '**/*.js', '**/*.mjs', '**/*.cjs', '.cache/**', 'tmp/**'] },
	...tseslint.configs.recommended.map((config) => ({ ...config, files: ['**/*.ts'] })),
	{
		files: ['**/*.ts'],
		rules: {
			'@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
		},
	},
	{
		files: [...shipped, 'package.json'],
		...communityNodes.configs.recommended,
	},
	{
		files: ['package.json'],
		languageOptions: { parser: tseslint.parser, parserOptions: { extraFileExtensions: ['.json'] } },
		plugins: { 'n8n-nodes-base': n8nNodesBase },
		rules: { ...n8nNodesBase.configs.community.rules },
	},
	{
		files: ['credentials/**/*.ts'],
		plugins: { 'n8n-nodes-base': n8nNodesBase },
		rules: { ...n8nNodesBase.configs.credentials.rules, ...outdatedRules },
	},
	{
		files: ['nodes/**/*.ts'],
		plugins: { 'n8n-nodes-base': n8nNodesBase },
		rules: { ...n8nNodesBase.configs.nodes.rules, ...outdatedRules },
	},
	{
		files: shipped,
		// Prettier wraps code at 120 but never a string or a comment: this rule holds those to the same width.
		rules: { 'no-console': 'error', 'max-len': ['error', { code: 120, tabWidth: 2 }] },
	},
	{
		// Files small enough to read in one sitting; split a file by concern before it grows past this.
		files: shipped,
		rules: { 'max-lines': ['error', { max: 300 }] },
	},
	{
		files: shipped,
		ignores: [errorsModule],
		rules: { 'no-restricted-syntax': ['error', errorConstructors] },
	},
);
