/**
 * The dead-export check of `npm run lint` (scripts/dead-exports.ts): the repository has no export of shipped code
 * that nothing imports, and a planted one is found (an export used only by a test counts as used).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

import { findDeadExports } from '../../../scripts/dead-exports';

test('no export of nodes/ or credentials/ is imported nowhere', () => {
	expect(findDeadExports(resolve(__dirname, '../../..'))).toEqual([]);
});

test('a planted unused export is found; one a test imports, one an index passes on, and entry points are not', () => {
	const root = mkdtempSync(join(tmpdir(), 'dd-exports-'));
	try {
		const write = (path: string, text: string) => {
			mkdirSync(join(root, path, '..'), { recursive: true });
			writeFileSync(join(root, path), text);
		};
		write('tsconfig.json', JSON.stringify({ include: ['nodes/**/*', 'test/**/*'] }));
		write(
			'nodes/a.ts',
			'export const used = 1;\nexport const testOnly = 2;\nexport interface Unused { a: number }\nexport type ViaIndex = 3;\n',
		);
		write('nodes/index.ts', "export { type ViaIndex } from './a';\n");
		write(
			'nodes/b.ts',
			"import { used } from './a';\nimport type { ViaIndex } from '.';\nexport const b: ViaIndex = used;\n",
		);
		write('nodes/X.node.ts', "import { b } from './b';\nexport class X { b = b; }\n");
		write('test/a.test.ts', "import { testOnly } from '../nodes/a';\nvoid testOnly;\n");
		expect(findDeadExports(root)).toEqual(['nodes/a.ts:3 Unused']);
	} finally {
		rmSync(root, { recursive: true, force: true });
	}
});
