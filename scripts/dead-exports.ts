/**
 * The dead-export check of `npm run lint`: every name that shipped code (nodes/, credentials/) exports must be
 * imported somewhere in the project (shipped code, tests, benchmarks or scripts: an export used only by a test
 * counts as used). The node and credential classes are n8n's entry points. Read with the TypeScript compiler's
 * own parser over the files of tsconfig.json, so it needs nothing beyond TypeScript.
 *
 *   npx ts-node --transpile-only scripts/dead-exports.ts    prints each unused export; exits 1 if there is one
 */
import { dirname, relative, resolve } from 'node:path';
import * as ts from 'typescript';

const SHIPPED = /^(nodes|credentials)\//;
/** n8n loads these classes by the paths package.json names. */
const ENTRY_POINTS = /\.(node|credentials)\.ts$/;

function projectFiles(root: string): string[] {
	const configPath = resolve(root, 'tsconfig.json');
	const { config } = ts.readConfigFile(configPath, (path) => ts.sys.readFile(path));
	return ts.parseJsonConfigFileContent(config, ts.sys, root).fileNames.filter((file) => !file.endsWith('.d.ts'));
}

/** `nodes/x/y` for a module specifier of `from`, or undefined for a package. */
function resolveModule(from: string, specifier: string, known: Set<string>): string | undefined {
	if (!specifier.startsWith('.')) return undefined;
	const base = resolve(dirname(from), specifier);
	for (const candidate of [`${base}.ts`, `${base}/index.ts`, base]) if (known.has(candidate)) return candidate;
	return undefined;
}

function isExported(node: ts.Node): boolean {
	return (ts.getCombinedModifierFlags(node as ts.Declaration) & ts.ModifierFlags.Export) !== 0;
}

/** The names a shipped file exports, with their lines. */
function exportsOf(source: ts.SourceFile): Map<string, number> {
	const names = new Map<string, number>();
	const add = (name: string, node: ts.Node) =>
		names.set(name, source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1);
	for (const statement of source.statements) {
		if (ts.isVariableStatement(statement) && isExported(statement)) {
			for (const declaration of statement.declarationList.declarations) {
				if (ts.isIdentifier(declaration.name)) add(declaration.name.text, declaration);
			}
		} else if (
			(ts.isFunctionDeclaration(statement) ||
				ts.isClassDeclaration(statement) ||
				ts.isInterfaceDeclaration(statement) ||
				ts.isTypeAliasDeclaration(statement) ||
				ts.isEnumDeclaration(statement)) &&
			statement.name &&
			isExported(statement)
		) {
			add(statement.name.text, statement);
		} else if (
			ts.isExportDeclaration(statement) &&
			statement.exportClause &&
			ts.isNamedExports(statement.exportClause)
		) {
			for (const element of statement.exportClause.elements) add(element.name.text, element);
		}
	}
	return names;
}

interface Uses {
	/** Per file, the names imported from it; `*` for a namespace import, `export *` or a dynamic import. */
	byFile: Map<string, Set<string>>;
	use(file: string, name: string): void;
}

function collectUses(sources: ts.SourceFile[], known: Set<string>): Uses {
	const byFile = new Map<string, Set<string>>();
	const use = (file: string, name: string) => {
		if (!byFile.has(file)) byFile.set(file, new Set());
		byFile.get(file)!.add(name);
	};
	for (const source of sources) {
		const visit = (node: ts.Node): void => {
			if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
				const target = resolveModule(source.fileName, node.moduleSpecifier.text, known);
				const bindings = node.importClause?.namedBindings;
				if (target && bindings && ts.isNamedImports(bindings)) {
					for (const element of bindings.elements) use(target, (element.propertyName ?? element.name).text);
				} else if (target) use(target, '*');
			} else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
				const target = resolveModule(source.fileName, node.moduleSpecifier.text, known);
				const clause = node.exportClause;
				if (target && clause && ts.isNamedExports(clause)) {
					for (const element of clause.elements) use(target, (element.propertyName ?? element.name).text);
				} else if (target) use(target, '*');
			} else if (
				ts.isCallExpression(node) &&
				(node.expression.kind === ts.SyntaxKind.ImportKeyword ||
					(ts.isIdentifier(node.expression) && node.expression.text === 'require')) &&
				node.arguments.length === 1 &&
				ts.isStringLiteral(node.arguments[0])
			) {
				const target = resolveModule(source.fileName, node.arguments[0].text, known);
				if (target) use(target, '*');
			}
			ts.forEachChild(node, visit);
		};
		visit(source);
	}
	return { byFile, use };
}

/**
 * A re-export (`export { a } from './x'`) passes on the use: a name imported from an index counts for the file
 * the index takes it from. Repeated until nothing changes, for chains of indexes.
 */
function passThroughReexports(sources: ts.SourceFile[], known: Set<string>, uses: Uses): void {
	for (let changed = true; changed;) {
		changed = false;
		for (const source of sources) {
			const used = uses.byFile.get(source.fileName);
			if (!used) continue;
			for (const statement of source.statements) {
				if (!ts.isExportDeclaration(statement) || !statement.moduleSpecifier) continue;
				if (!ts.isStringLiteral(statement.moduleSpecifier)) continue;
				const target = resolveModule(source.fileName, statement.moduleSpecifier.text, known);
				const clause = statement.exportClause;
				if (!target || !clause || !ts.isNamedExports(clause)) continue;
				for (const element of clause.elements) {
					if (!used.has(element.name.text) && !used.has('*')) continue;
					const original = (element.propertyName ?? element.name).text;
					if (uses.byFile.get(target)?.has(`via:${original}`)) continue;
					uses.use(target, `via:${original}`);
					changed = true;
				}
			}
		}
	}
}

/** `path:line name` of each export of shipped code that nothing in the project at `root` imports. */
export function findDeadExports(root: string): string[] {
	const files = projectFiles(root);
	const known = new Set(files);
	const sources = files.map((file) =>
		ts.createSourceFile(file, ts.sys.readFile(file) ?? '', ts.ScriptTarget.ES2022, true),
	);
	const uses = collectUses(sources, known);
	passThroughReexports(sources, known, uses);
	const unused: string[] = [];
	for (const source of sources) {
		const path = relative(root, source.fileName).split('\\').join('/');
		if (!SHIPPED.test(path) || ENTRY_POINTS.test(path)) continue;
		const used = uses.byFile.get(source.fileName) ?? new Set<string>();
		if (used.has('*')) continue;
		for (const [name, line] of exportsOf(source)) {
			// A file's own re-exports (an index) are judged where they come from.
			if (used.has(name) || used.has(`via:${name}`)) continue;
			if (isReexport(source, name)) continue;
			unused.push(`${path}:${line} ${name}`);
		}
	}
	return unused;
}

function isReexport(source: ts.SourceFile, name: string): boolean {
	return source.statements.some(
		(statement) =>
			ts.isExportDeclaration(statement) &&
			statement.moduleSpecifier !== undefined &&
			statement.exportClause !== undefined &&
			ts.isNamedExports(statement.exportClause) &&
			statement.exportClause.elements.some((element) => element.name.text === name),
	);
}

if (require.main === module) {
	const unused = findDeadExports(resolve(__dirname, '..'));
	for (const entry of unused) console.log(`exported and imported nowhere: ${entry}`);
	if (unused.length > 0) {
		console.log(`${unused.length} unused export(s): remove the export, or the code if nothing uses it.`);
		process.exitCode = 1;
	}
}
